import { describe, expect, it } from "vitest";
import { RetryGuards } from "./retry-guards.js";

const write = (content: string, path = "a.ts") => ({ name: "write_file", arguments: { path, content } });
const run = (command: string) => ({ name: "run_command", arguments: { command } });
const ok = (changed: string[] = [], output = "ok") => ({ is_error: false, changed_paths: changed, output });
const fail = (output: string) => ({ is_error: true, changed_paths: [], output });

describe("RetryGuards: writes", () => {
  it("blocks an identical failed write until the content changes", () => {
    const guards = new RetryGuards();
    guards.record(write("x"), fail("lint gate: unexpected token"));
    const blocked = guards.check(write("x"));
    expect(blocked.blocked).toBe(true);
    if (blocked.blocked) expect(blocked.message).toContain("unexpected token");
    expect(guards.check(write("y"))).toEqual({ blocked: false });
    expect(guards.check({ name: "write_file", arguments: { content: "x", path: "./a.ts" } }).blocked).toBe(false);
  });

  it("a failed write is unblocked by a mutation of the workspace", () => {
    const guards = new RetryGuards();
    const replace = { name: "replace_in_file", arguments: { path: "a.ts", diff: "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE" } };
    guards.record(replace, fail("SEARCH block not found"));
    expect(guards.check(replace).blocked).toBe(true);
    guards.record(write("x"), ok(["a.ts"]));
    expect(guards.check(replace).blocked).toBe(false);
  });

  it("treats argument order and ignored arguments as identical", () => {
    const guards = new RetryGuards();
    guards.record({ name: "write_file", arguments: { path: "a", content: "1" } }, fail("no"));
    expect(guards.check({ name: "write_file", arguments: { content: "1", path: "a", timeout_ms: 5 } }).blocked).toBe(true);
  });

  it("reports an identical successful write as a duplicate until its file changes", () => {
    const guards = new RetryGuards();
    guards.record(write("x"), ok(["a.ts"]));
    expect(guards.isDuplicateSuccessfulWrite(write("x"))).toBe(true);
    expect(guards.isDuplicateSuccessfulWrite(write("y"))).toBe(false);
    expect(guards.isDuplicateSuccessfulWrite(write("x", "b.ts"))).toBe(false);
    guards.record(write("z", "b.ts"), ok(["b.ts"]));
    expect(guards.isDuplicateSuccessfulWrite(write("x"))).toBe(true);
    guards.record(write("y"), ok(["a.ts"]));
    expect(guards.isDuplicateSuccessfulWrite(write("x"))).toBe(false);
    expect(guards.isDuplicateSuccessfulWrite(write("y"))).toBe(true);
  });

  it("forgets successful writes after a command that may have rewritten files", () => {
    const guards = new RetryGuards();
    guards.record(write("x"), ok(["a.ts"]));
    guards.record(run("npm run format"), ok([], "formatted"));
    expect(guards.isDuplicateSuccessfulWrite(write("x"))).toBe(false);
  });

  it("never reports a non-write as a duplicate", () => {
    const guards = new RetryGuards();
    guards.record(run("ls"), ok());
    expect(guards.isDuplicateSuccessfulWrite(run("ls"))).toBe(false);
  });
});

describe("RetryGuards: commands", () => {
  it("blocks an unchanged failed command until a mutation", () => {
    const guards = new RetryGuards();
    guards.record(run("npm test"), fail("FAIL sum.test.js\nexpected 3 received 4"));
    expect(guards.check(run("npm test")).blocked).toBe(true);
    expect(guards.check(run("npm  test ")).blocked).toBe(true);
    expect(guards.check(run("npm test -- sum")).blocked).toBe(false);
    guards.record({ name: "read_file", arguments: { path: "sum.js" } }, ok([], "1 | export const sum = …"));
    expect(guards.check(run("npm test")).blocked).toBe(true);
    guards.record(write("fixed", "sum.js"), ok(["sum.js"]));
    expect(guards.check(run("npm test"))).toEqual({ blocked: false });
  });

  it("unblocks after a materially different diagnostic, not after a merely renumbered one", () => {
    const guards = new RetryGuards();
    guards.record(run("npm test"), fail("Error at 12:04:31, took 120ms: connection refused on port 5432"));
    guards.record(run("npm test -- --verbose"), fail("Error at 12:04:35, took 98ms: connection refused on port 5432"));
    expect(guards.check(run("npm test")).blocked).toBe(true);
    guards.record({ name: "process_poll", arguments: { id: "p1" } }, ok([], "database system is ready to accept connections"));
    expect(guards.check(run("npm test")).blocked).toBe(false);
  });

  it("a command that later succeeds is no longer blocked and a new failure blocks again", () => {
    const guards = new RetryGuards();
    guards.record(run("make"), fail("error 1"));
    guards.record(write("x"), ok(["a.ts"]));
    guards.record(run("make"), ok([], "built"));
    expect(guards.check(run("make")).blocked).toBe(false);
    guards.record(run("make"), fail("error 2"));
    expect(guards.check(run("make")).blocked).toBe(true);
  });
});
