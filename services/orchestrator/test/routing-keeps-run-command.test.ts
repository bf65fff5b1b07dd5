import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/**
 * Issue 26 over the real services: intent routing trims specialist tools but never takes away the
 * means to verify (ARCHITECTURE §12). Tasks whose words route to no "run" intent (a rename, a setup
 * step, git set-up) are still offered run_command, and their first command runs instead of being
 * refused TOOL_NOT_OFFERED. Plan mode keeps its read-only set.
 */
describe.skipIf(skipReason !== "")(`routing offers run_command for every Act task${skipReason}`, () => {
  let stack: Stack;
  const tasks: Record<string, string> = {
    rename: "Rename add to plus everywhere",
    setup: "Add a setup step to the README",
    git: "Set up git for this project",
  };
  beforeAll(async () => {
    const script = () => [{ text: call.run("node math.test.js") }, { text: call.complete("Ran the tests; they fail at add().") }];
    stack = await startStack([{ text: call.complete("Planned.") }], { models: { rename: script(), setup: script(), git: script() } });
  }, 120_000);
  afterAll(async () => stack?.stop());

  it.each(Object.keys(tasks))("the %s task's first run_command is offered and runs", async (model) => {
    const started = await stack.command("start", { allow_concurrent: true, task: tasks[model], workspace: stack.workspace, model, auto_approve: { edits: false, commands: ["node"] } });
    const session = started.result.session as string;
    const completed = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command", 60_000);
    expect(String(completed.payload.summary ?? "")).not.toContain("TOOL_NOT_OFFERED");
    expect(completed.payload, JSON.stringify(completed.payload)).not.toMatchObject({ metadata: { error_code: "TOOL_NOT_OFFERED" } });
    // It really ran: the sample project's test fails with exit 1 (add subtracts).
    expect(completed.payload).toMatchObject({ metadata: { exit_code: 1 } });
    await stack.terminal(session, undefined, 60_000);
    const first = stack.modelRequests(model)[0];
    expect(first.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["read_file", "search_files", "write_file", "replace_in_file", "run_command", "attempt_completion"]));
  });

  it("Plan mode still offers no run_command", async () => {
    const started = await stack.command("start", { allow_concurrent: true, task: "Run the tests and plan the fix", mode: "plan", workspace: stack.workspace });
    await stack.terminal(started.result.session as string, undefined, 60_000);
    const names = stack.modelRequests()[0].tools.map((tool) => tool.name);
    expect(names).toContain("read_file");
    expect(names).toContain("switch_to_act_mode");
    expect(names).not.toContain("run_command");
    expect(names).not.toContain("write_file");
    expect(stack.invalidEvents).toEqual([]);
  });
});
