import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

const answer = 'The test fails because add() in math.js subtracts (a - b): `node math.test.js` exits 1 with "add(2, 3) should be 5".';
/** Read the code, read the test, run it (exit 1: add subtracts), answer. Three completions so a refused one is retried, then unverified. */
const investigate = () => [
  { text: call.read("math.js") },
  { text: call.read("math.test.js") },
  { text: call.run("node math.test.js") },
  { text: call.complete(answer) },
  { text: call.complete(answer) },
  { text: call.complete(answer) },
];

/**
 * Issue 26 over the real services: for a question about a failure, a run that shows the failure is
 * the evidence. The same transcript under a request to fix it stays strict: a failing run is never
 * evidence that anything works.
 */
describe.skipIf(skipReason !== "")(`a question about a failure answered with a failing run${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.complete("unused") }], { contextBudget: 32_768, models: { question: investigate(), change: investigate() } });
  }, 120_000);
  afterAll(async () => stack?.stop());

  async function run(model: string, task: string) {
    const started = await stack.command("start", { allow_concurrent: true, task, workspace: stack.workspace, model, auto_approve: { edits: false, commands: ["node"] } });
    const session = started.result.session as string;
    const end = await stack.terminal(session, undefined, 90_000);
    const ran = stack.events.find((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command");
    return { session, end, ran };
  }

  it('"Why does the test in math.test.js fail?": read, read, run (exit 1), answer → done, the failing run cited', async () => {
    const { session, end, ran } = await run("question", "Why does the test in math.test.js fail?");
    expect(ran?.payload).toMatchObject({ is_error: true, metadata: { exit_code: 1 } });
    expect(stack.events.filter((e) => e.session === session && e.type === "completion.rejected").map((e) => e.payload)).toEqual([]);
    expect(end.type).toBe("run.completed");
    expect(end.payload, JSON.stringify(end.payload)).toMatchObject({ state: "done" });
    expect((end.payload as { evidence: string[] }).evidence).toEqual(expect.arrayContaining([expect.stringMatching(/run_command `node math\.test\.js` failed \(shows the failure asked about\)/)]));
  });

  it('"Fix the failing test in math.test.js" with the same failing run and no change is refused, then unverified', async () => {
    const { session, end } = await run("change", "Fix the failing test in math.test.js");
    expect(stack.events.some((e) => e.session === session && e.type === "completion.rejected")).toBe(true);
    expect(end.payload).toMatchObject({ state: "unverified" });
    expect(stack.invalidEvents).toEqual([]);
  });
});
