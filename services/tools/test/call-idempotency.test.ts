import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestJson } from "../../../tests/helpers/service-process.js";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/** The tools service runs a mutating call id once: repeats, concurrent duplicates and restarts included. */
describe("exec keyed by call id", () => {
  let h: ToolsHarness;
  const exec = (id: string, name: string, args: Record<string, unknown>, session = "s1") =>
    requestJson(h.client, "agent.tools.exec", { session, workspace: h.workspace, call: { id, name, arguments: args } }, 60_000);
  const lines = (file: string) => readFileSync(join(h.workspace, file), "utf8").split("\n").filter(Boolean);
  beforeAll(async () => {
    h = await startToolsHarness({ stateInScratch: true });
  }, 120_000);
  afterAll(async () => h?.stop());

  it("a repeated exec of a command that appends to a file appends once and returns the stored result", async () => {
    const first = await exec("append-1", "run_command", { command: "echo one >> log.txt && wc -l < log.txt" });
    expect(first.ok, JSON.stringify(first)).toBe(true);
    expect(first.result.is_error).toBe(false);
    const second = await exec("append-1", "run_command", { command: "echo one >> log.txt && wc -l < log.txt" });
    expect(second.result.output).toBe(first.result.output);
    expect(second.result.metadata.repeated).toBe(true);
    expect(lines("log.txt")).toEqual(["one"]);
  });

  it("a concurrent duplicate waits for the first and gets its result; the command runs once", async () => {
    const command = "sleep 0.3; echo two >> concurrent.txt; cat concurrent.txt";
    const replies = await Promise.all([1, 2, 3].map(() => exec("append-2", "run_command", { command })));
    for (const reply of replies) expect(reply.ok, JSON.stringify(reply)).toBe(true);
    expect(new Set(replies.map((reply) => reply.result.output)).size).toBe(1);
    expect(lines("concurrent.txt")).toEqual(["two"]);
  });

  it("a write_file repeat does not write again over a later change", async () => {
    await exec("write-1", "write_file", { path: "w.txt", content: "first\n" });
    writeFileSync(join(h.workspace, "w.txt"), "changed by someone\n");
    const again = await exec("write-1", "write_file", { path: "w.txt", content: "first\n" });
    expect(again.result.metadata.repeated).toBe(true);
    expect(readFileSync(join(h.workspace, "w.txt"), "utf8")).toBe("changed by someone\n");
  });

  it("the same id with other arguments is refused with CALL_ID_CONFLICT; another session's same id is its own call", async () => {
    const conflict = await exec("append-1", "run_command", { command: "echo other >> log.txt" });
    expect(conflict.ok).toBe(false);
    expect(conflict.error.code).toBe("CALL_ID_CONFLICT");
    const otherSession = await exec("append-1", "run_command", { command: "echo one >> log.txt && wc -l < log.txt" }, "s2");
    expect(otherSession.result.metadata.repeated).toBeUndefined();
    expect(lines("log.txt")).toEqual(["one", "one"]);
  });

  it("after a restart of the tools service process a repeat is still answered from the journal, not run", async () => {
    await h.restart();
    const again = await exec("append-1", "run_command", { command: "echo one >> log.txt && wc -l < log.txt" });
    expect(again.ok, JSON.stringify(again)).toBe(true);
    expect(again.result.metadata.repeated).toBe(true);
    expect(lines("log.txt")).toEqual(["one", "one"]);
    const concurrent = await exec("append-2", "run_command", { command: "sleep 0.3; echo two >> concurrent.txt; cat concurrent.txt" });
    expect(concurrent.result.metadata.repeated).toBe(true);
    expect(lines("concurrent.txt")).toEqual(["two"]);
    // Control: a new id does run.
    await exec("append-3", "run_command", { command: "echo three >> log.txt" });
    expect(lines("log.txt")).toEqual(["one", "one", "three"]);
  }, 180_000);

  it("a mutation the service was killed in the middle of is answered CALL_INTERRUPTED after the restart, never run again", async () => {
    const command = "echo began >> interrupted.txt; sleep 60; echo finished >> interrupted.txt";
    const pending = exec("long-1", "run_command", { command }).catch(() => undefined);
    const journal = join(h.scratch, "state", "calls.jsonl");
    while (!readFileSync(journal, "utf8").includes("long-1") || !existsSync(join(h.workspace, "interrupted.txt"))) await new Promise((resolve) => setTimeout(resolve, 50));
    await h.service.stop("SIGKILL");
    await h.restart();
    const again = await exec("long-1", "run_command", { command });
    expect(again.ok, JSON.stringify(again)).toBe(true);
    expect(again.result).toMatchObject({ is_error: true, metadata: { error_code: "CALL_INTERRUPTED" } });
    expect(lines("interrupted.txt")).toEqual(["began"]);
    void pending;
  }, 180_000);
});
