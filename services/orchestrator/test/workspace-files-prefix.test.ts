import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/**
 * workspace_files over the real services: the first turn's system message lists the workspace's
 * real files (from the tools service), says paths are relative to the root, stays the same in every
 * later turn, and a run without the setting has no such block.
 */
describe.skipIf(skipReason !== "")(`the workspace's files in the first turn${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([
      { text: call.read("math.js") },
      { text: call.complete("math.js defines add and multiply.") },
      { text: call.read("math.js") },
      { text: call.complete("math.js defines add and multiply.") },
    ]);
  });
  afterAll(async () => stack?.stop());

  it("lists the files in turn 1's system message and keeps it", async () => {
    const reply = await stack.command("start", { task: "What does math.js define?", workspace: stack.workspace, experiment: { workspace_files: true } });
    const session = reply.result.session as string;
    expect((await stack.terminal(session)).payload).toMatchObject({ state: "done" });
    const requests = stack.modelRequests();
    const system = requests[0].messages[0].content;
    expect(system).toContain("# Workspace files\nEvery path is relative to the workspace root");
    expect(system).toMatch(/\nmath\.js\n/);
    expect(system).toMatch(/\nmath\.test\.js/);
    expect(requests[1].messages[0].content).toBe(system);
    const created = stack.events.find((event) => event.session === session && event.type === "run.created");
    expect(created?.payload).toMatchObject({ experiment: { workspace_files: true } });
    const built = stack.events.find((event) => event.session === session && event.type === "context.built");
    expect((built!.payload as { workspace_entries?: number }).workspace_entries).toBeGreaterThan(1);
  });

  it("a plain run has no such block", async () => {
    const before = stack.modelRequests().length;
    const reply = await stack.command("start", { task: "What does math.js define?", workspace: stack.workspace });
    const session = reply.result.session as string;
    expect((await stack.terminal(session)).payload).toMatchObject({ state: "done" });
    expect(stack.modelRequests()[before].messages[0].content).not.toContain("# Workspace files");
  });
});
