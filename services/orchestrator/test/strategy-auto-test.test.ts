import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@aide/contracts";
import { evalCommandRules } from "../../../cli/src/eval/script-rules.js";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

type ToolPayload = { call_id: string; tool: string; args: { command?: string }; is_error?: boolean };

/**
 * The auto_test and prefix_failing_output strategies over the real services (the tools service
 * runs the command in its bubblewrap sandbox, the orchestrator's gate decides): the sample
 * project's test command is found from package.json (`npm test`), run once before turn 1 with its
 * failing output in the first turn's system message, and again after the model's edit, its result
 * reaching the model's next turn and counting as the run's verification.
 */
describe.skipIf(skipReason !== "")(`strategies: auto_test and prefix_failing_output${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.replace("math.js", "  return a - b;", "  return a + b;") }, { text: call.complete("Fixed add() in math.js; npm test passes.") }]);
  });
  afterAll(async () => stack?.stop());

  it("runs the detected test command before turn 1 and after the edit, through the gate, and feeds both back", async () => {
    const reply = await stack.command("start", {
      task: "Fix the failing test in math.js",
      workspace: stack.workspace,
      // A script runner is allowed only with the digest of the scripts as they are: the rule an approval records.
      auto_approve: { edits: true, commands: evalCommandRules(stack.workspace, ["npm test"]) },
      experiment: { arm: "tested", auto_test: true, prefix_failing_output: true },
    });
    expect(reply).toMatchObject({ ok: true });
    const session = reply.result.session as string;
    const end = await stack.terminal(session, undefined, 120_000);
    const mine = stack.events.filter((event) => event.session === session);
    expect(mine.find((event) => event.type === "run.created")!.payload).toMatchObject({
      experiment: { arm: "tested", auto_test: true, prefix_failing_output: true, auto_lint: false, few_shot: false, loop_breaker: false, code_map: false },
    });

    const commands = mine.filter((event): event is AgentEvent & { payload: ToolPayload } => event.type === "tool.completed" && (event.payload as ToolPayload).tool === "run_command");
    expect(commands.map((event) => event.payload.args.command)).toEqual(["npm test", "npm test"]);
    const [before, after] = commands;
    expect(before.payload.call_id).toMatch(/^prefix-test-/);
    expect(before.payload.is_error).toBe(true);
    expect(after.payload.call_id).toMatch(/^auto-test-/);
    expect(after.payload.is_error).toBe(false);
    // Both went through the gate: the allow rule decided (an auto decision is an event of its own).
    const autoDecisions = mine.filter((event) => event.type === "approval.decided" && (event.payload as { decision: string }).decision === "auto");
    expect(autoDecisions.length).toBeGreaterThanOrEqual(3);
    // The prefix run came before the first model request.
    const firstRequest = mine.find((event) => event.type === "model.requested")!;
    expect(before.seq).toBeLessThan(firstRequest.seq);

    const requests = stack.modelRequests();
    expect(requests.length).toBe(2);
    const system = requests[0].messages[0].content;
    expect(system).toContain("# Test output before your first turn");
    expect(system).toContain("aide ran the project's test command `npm test` (from package.json scripts.test) once before you started; it FAILED.");
    // Turn 2 keeps turn 1's prefix (KV reuse) and carries the auto test's result.
    expect(requests[1].messages[0].content).toBe(system);
    const last = requests[1].messages.at(-1)!.content;
    expect(last).toContain("auto_test: aide ran the project's test command (npm test, from package.json scripts.test) after your edit");
    expect(last).toContain(after.payload.call_id);

    // The auto test is the run's verification: the edit is followed by a passing execution.
    expect(end.type).toBe("run.completed");
    expect(end.payload).toMatchObject({ state: "done" });
    const built = mine.filter((event) => event.type === "context.built").map((event) => event.payload as { failing_output_chars?: number });
    expect(built.every((payload) => (payload.failing_output_chars ?? 0) > 0)).toBe(true);
  }, 180_000);
});
