import { describe, expect, it } from "vitest";
import { LoopBreaker } from "./loop-breaker.js";

const read = { name: "read_file", arguments: { path: "missing.js" } };
const failed = { is_error: true, output: "No file at missing.js.", changed_paths: [] };

describe("the loop breaker", () => {
  it("lets a first failure through, redirects the second identical one, stops at the third", () => {
    const breaker = new LoopBreaker();
    expect(breaker.observe(read, failed)).toEqual({ action: "none" });
    const second = breaker.observe(read, failed);
    expect(second.action).toBe("redirect");
    expect(second.action === "redirect" && second.message).toMatch(/failed twice the same way \(No file at missing\.js\.\)[\s\S]*list_dir on the parent folder/);
    const third = breaker.observe(read, failed);
    expect(third).toMatchObject({ action: "stop" });
    expect(third.action === "stop" && third.message).toContain("failed 3 times in a row");
  });

  it("counts only identical calls, and starts afresh after a change to the workspace", () => {
    const breaker = new LoopBreaker();
    breaker.observe(read, failed);
    expect(breaker.observe({ name: "read_file", arguments: { path: "other.js" } }, failed).action).toBe("none");
    breaker.observe({ name: "write_file", arguments: { path: "a.js", content: "x" } }, { is_error: false, output: "Wrote a.js", changed_paths: ["a.js"] });
    expect(breaker.observe(read, failed).action).toBe("none");
  });

  it("names the argument problem when the failures are validation errors", () => {
    const breaker = new LoopBreaker();
    const listing = { name: "list_dir", arguments: { path: ".", max_entries: "-300000000000000" } };
    const invalid = { is_error: true, output: "max_entries must be at least 1", changed_paths: [], error_code: "VALIDATION" };
    breaker.observe(listing, invalid);
    const verdict = breaker.observe(listing, invalid);
    expect(verdict.action === "redirect" && verdict.message).toContain("do not match the tool's parameters");
  });

  it("points a command whose cwd is a file or missing at the cwd, not at the code", () => {
    const breaker = new LoopBreaker();
    const command = { name: "run_command", arguments: { command: "go test", cwd: "test.go" } };
    const wrongPlace = { is_error: true, output: "cwd test.go is a file, not a directory; give the folder that holds it.", changed_paths: [], error_code: "NOT_A_DIRECTORY" };
    breaker.observe(command, wrongPlace);
    const verdict = breaker.observe(command, wrongPlace);
    expect(verdict.action === "redirect" && verdict.message).toContain("leave cwd out");
  });
});
