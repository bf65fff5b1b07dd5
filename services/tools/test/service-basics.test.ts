import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestJson } from "../../../tests/helpers/service-process.js";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

describe("aide-tools over the bus (real service process)", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness();
    mkdirSync(join(h.workspace, "src"));
    writeFileSync(join(h.workspace, "src", "a.ts"), Array.from({ length: 250 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    writeFileSync(join(h.workspace, "README.md"), "hello\u202Eevil\n");
    mkdirSync(join(h.workspace, ".git"));
    mkdirSync(join(h.workspace, ".aide"));
    writeFileSync(join(h.workspace, ".aide", "credentials.json"), "{}");
  });
  afterAll(async () => h?.stop());

  it("answers $SRV.PING as aide-tools and lists its catalog with JSON Schemas", async () => {
    const reply = await requestJson(h.client, "agent.tools.list", {});
    expect(reply.ok).toBe(true);
    const names = reply.result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("read_file");
    expect(names).toContain("list_dir");
    const read = reply.result.tools.find((t: { name: string }) => t.name === "read_file");
    expect(read.handled_by).toBe("tools");
    expect(read.read_only).toBe(true);
    expect(read.parameters.properties.offset.type).toBe("integer");
    expect(read.parameters.required).toEqual(["path"]);
  });

  it("read_file returns a numbered 100-line window with a continuation hint", async () => {
    const reply = await h.exec("read_file", { path: "src/a.ts" });
    expect(reply.ok).toBe(true);
    expect(reply.result.is_error).toBe(false);
    expect(reply.result.output).toMatch(/^\s+1\tline 1\n/);
    expect(reply.result.output).toContain("100\tline 100");
    expect(reply.result.output).not.toContain("line 101");
    expect(reply.result.output).toContain("Use offset=101 to continue");
    expect(reply.result.metadata.total_lines).toBe(250);
  });

  it("accepts the string forms the XML protocol delivers and reports aliases", async () => {
    const reply = await h.exec("read_file", { file_path: "src/a.ts", offset: "241", limit: "5" });
    expect(reply.result.is_error).toBe(false);
    expect(reply.result.output).toContain(" 241\tline 241");
    expect(reply.result.output).toContain(" 245\tline 245");
    expect(reply.result.output).not.toContain("line 246");
    expect(reply.result.notices.join(" ")).toContain("`file_path` was accepted as an alias of `path`");
  });

  it("refuses unknown arguments with the accepted list", async () => {
    const reply = await h.exec("read_file", { path: "src/a.ts", colour: "red" });
    expect(reply.result.is_error).toBe(true);
    expect(reply.result.output).toContain("`colour`");
    expect(reply.result.output).toContain("Accepted arguments: `path`, `offset`, `limit`");
  });

  it("escapes invisible characters in text returned to the model", async () => {
    const reply = await h.exec("read_file", { path: "README.md" });
    expect(reply.result.output).toContain("hello⟨U+202E⟩evil");
  });

  it("list_dir hides .git and .aide and accepts recursive as a string", async () => {
    const reply = await h.exec("list_dir", { path: ".", recursive: "true" });
    expect(reply.result.is_error).toBe(false);
    expect(reply.result.output.split("\n")).toEqual(["README.md", "src/", "src/a.ts"]);
  });

  it("describes binary files instead of dumping them", async () => {
    writeFileSync(join(h.workspace, "logo.png"), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), Buffer.alloc(5000, 7)]));
    const reply = await h.exec("read_file", { path: "logo.png" });
    expect(reply.result.output).toBe("This is a binary file (PNG image, 5009 bytes); its contents are not shown.");
    expect(reply.result.metadata.binary).toBe(true);
  });

  it("bounds long lines and huge files without reading them whole", async () => {
    writeFileSync(join(h.workspace, "long.txt"), "x".repeat(100_000) + "\nshort\n");
    const long = await h.exec("read_file", { path: "long.txt" });
    expect(long.result.output.length).toBeLessThan(3000);
    expect(long.result.output).toContain("Line 1 was cut at character 2,000 (of 100,000); use offset=1 char_offset=2000 to read on.");
    expect(long.result.output).toContain("2\tshort");
    const line = "0123456789".repeat(10) + "\n";
    const { openSync, writeSync, closeSync } = await import("node:fs");
    const fd = openSync(join(h.workspace, "huge.log"), "w");
    const chunk = Buffer.from(line.repeat(10_000));
    for (let i = 0; i < 70; i += 1) writeSync(fd, chunk);
    closeSync(fd);
    const huge = await h.exec("read_file", { path: "huge.log", offset: "5", limit: "3" });
    expect(huge.result.is_error).toBe(false);
    expect(huge.result.output).toContain("   5\t0123456789");
    expect(huge.result.output).toContain("Showing lines 5-7 (more follow). Use offset=8 to continue.");
    const end = await h.exec("read_file", { path: "huge.log", offset: 699_999 });
    expect(end.result.output).toContain("699999\t");
    expect(end.result.output).toContain("of 700000");
  });

  it("refuses paths outside the workspace and the agent's own state, as data", async () => {
    const outside = await h.exec("read_file", { path: "../../etc/passwd" });
    expect(outside.result.is_error).toBe(true);
    expect(outside.result.metadata.error_code).toBe("PATH_OUTSIDE_WORKSPACE");
    const aide = await h.exec("read_file", { path: ".aide/credentials.json" });
    expect(aide.result.metadata.error_code).toBe("PATH_DENIED");
    const absolute = await h.exec("list_dir", { path: "/etc" });
    expect(absolute.result.metadata.error_code).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("answers a missing workspace and an unknown tool clearly, and survives garbage", async () => {
    const missing = await requestJson(h.client, "agent.tools.exec", { session: "s1", workspace: join(h.scratch, "nope"), call: { id: "x", name: "read_file", arguments: { path: "a" } } });
    expect(missing.ok).toBe(false);
    expect(missing.error.code).toBe("WORKSPACE_NOT_FOUND");
    const unknown = await h.exec("launch_rockets", {});
    expect(unknown.result.is_error).toBe(true);
    expect(unknown.result.metadata.error_code).toBe("TOOL_NOT_FOUND");
    const garbage = await requestJson(h.client, "agent.tools.exec", "{not json");
    expect(garbage.error.code).toBe("BAD_JSON");
    const ping = await requestJson(h.client, "agent.tools.list", {});
    expect(ping.ok).toBe(true);
  });

  it("git_status outside a repository says so", async () => {
    const reply = await h.exec("git_status", {});
    expect(reply.result.is_error).toBe(true);
    expect(reply.result.output).toBe("The workspace is not a git repository.");
  });

  it("preview of a read-only call is not mutating and carries an args digest", async () => {
    const reply = await h.preview("read_file", { path: "src/a.ts" });
    expect(reply.ok).toBe(true);
    expect(reply.result.mutating).toBe(false);
    expect(reply.result.args_digest).toMatch(/^[0-9a-f]{64}$/);
  });
});
