import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/** One scripted model per row of the evidence table (src/evidence/evidence-ledger.ts); every session runs over the real services. */
const rows = {
  artifact: [
    { text: call.complete("Created hello.txt.") },
    { text: call.write("hello.txt", "hello") },
    { text: call.read("hello.txt") },
    { text: call.complete("Created hello.txt and read it back.") },
  ],
  execution: [
    { text: call.run("node math.test.js") },
    { text: call.complete("Ran the tests.") },
    { text: call.replace("math.js", "  return a - b;", "  return a + b;") },
    { text: call.run("node math.test.js") },
    { text: call.complete("The tests pass: 2 tests passed.") },
  ],
  source: [
    { text: call.complete("Here is the script: console.log(2 + 3)") },
    { text: call.write("sum.js", "console.log(2 + 3);") },
    { text: call.run("node sum.js") },
    { text: call.complete("sum.js prints 5.") },
  ],
  report: [
    { text: call.run("node math.test.js") },
    { text: call.complete("Report: the tests fail.") },
    { text: call.write("report.md", "# Test report\n\n`node math.test.js` fails: add(2, 3) should be 5.") },
    { text: call.read("report.md") },
    { text: call.complete("Wrote report.md after running the tests: they fail on add(2, 3).") },
  ],
  measurements: [
    { text: call.run("node bench.js") },
    { text: call.write("report.md", "# Benchmark\n\nmultiply: 9999 ops/ms, add: 8888 ops/ms") },
    { text: call.read("report.md") },
    { text: call.complete("multiply: 9999 ops/ms, add: 8888 ops/ms") },
    { text: call.write("report.md", "# Benchmark\n\nmultiply: 4242 ops/ms, add: 3131 ops/ms") },
    { text: call.read("report.md") },
    { text: call.complete("Benchmark in report.md: multiply 4242 ops/ms, add 3131 ops/ms (copied from the output).") },
  ],
  unverified: [{ text: call.complete("Done.") }, { text: call.complete("Done, really.") }, { text: call.complete("It is done.") }],
};

const tasks: Record<keyof typeof rows, string> = {
  artifact: "Create hello.txt containing hello",
  execution: "Run the tests",
  source: "Write a Node script sum.js that prints the sum of 2 and 3",
  report: "Run the tests and write a report of the results to report.md",
  measurements: "Benchmark add and multiply and write a report comparing their timings",
  unverified: "Create notes.txt with a summary of math.js",
};

describe.skipIf(!ready)(`the evidence table, row by row, over the real services${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(rows.artifact, { models: rows });
    writeFileSync(join(stack.workspace, "bench.js"), "console.log('multiply: 4242 ops/ms');\nconsole.log('add: 3131 ops/ms');\n");
  });
  afterAll(async () => stack?.stop());

  async function runRow(row: keyof typeof rows) {
    const started = await stack.command("start", {
      allow_concurrent: true,
      task: tasks[row],
      workspace: stack.workspace,
      model: row,
      auto_approve: { edits: true, commands: ["node"] },
    });
    expect(started).toMatchObject({ ok: true });
    const session = started.result.session as string;
    const end = await stack.terminal(session, undefined, 60_000);
    const rejected = stack.events.filter((e) => e.session === session && e.type === "completion.rejected");
    return { session, end, rejected: rejected.map((e) => e.payload as { missing: string[]; instruction: string; attempt: number; claims?: Array<{ kind: string; quote: string }> }) };
  }

  it("concrete artifact: a successful mutation and a later verification", async () => {
    const { end, rejected } = await runRow("artifact");
    // Issue 12: the claims audit also quotes the claim the first attempt made without any event.
    expect(rejected).toEqual([expect.objectContaining({ missing: ["artifact", "claims"], attempt: 1 })]);
    expect(rejected[0].claims).toEqual([expect.objectContaining({ kind: "file_changed", quote: "Created hello.txt" })]);
    expect(end.payload).toMatchObject({ state: "done" });
    expect(readFileSync(join(stack.workspace, "hello.txt"), "utf8")).toContain("hello");
  });

  it("execute/test: a successful execution; a failed command stays unresolved until a later one succeeds", async () => {
    const { end, rejected } = await runRow("execution");
    expect(rejected).toHaveLength(1);
    expect(rejected[0].missing).toContain("execution");
    expect(end.payload).toMatchObject({ state: "done" });
  });

  it("source-code request: a separate executable source file (and its run)", async () => {
    const { end, rejected } = await runRow("source");
    expect(rejected[0].missing).toEqual(expect.arrayContaining(["source_file"]));
    expect(end.payload).toMatchObject({ state: "done" });
  });

  it("report request: a separate report written after execution", async () => {
    const { end, rejected } = await runRow("report");
    expect(rejected[0].missing).toEqual(expect.arrayContaining(["report"]));
    expect(end.payload).toMatchObject({ state: "done" });
  });

  it("benchmark/comparison report: exact numbers copied from successful output", async () => {
    const { end, rejected } = await runRow("measurements");
    expect(rejected).toHaveLength(1);
    expect(rejected[0].missing).toEqual(["measurements"]);
    expect(end.payload).toMatchObject({ state: "done" });
  });

  it("no evidence after the retry budget: unverified, with an explicit incomplete result", async () => {
    const { end, rejected, session } = await runRow("unverified");
    expect(rejected).toHaveLength(2);
    expect(end.type).toBe("run.completed");
    expect(end.payload).toMatchObject({ state: "unverified", result: expect.stringContaining("INCOMPLETE") });
    expect(stack.events.some((e) => e.session === session && e.type === "completion.unverified")).toBe(true);
    const status = await stack.command("status", { session });
    expect(status.result).toMatchObject({ state: "unverified" });
  });
});
