import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/** Issue 13 item 6: two runs on one workspace. The real orchestrator process over a real bus. */
describe.skipIf(!ready)(`a second start on a workspace with a running session${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.write("a.txt", "x") }], {
      orchestratorEnv: { AIDE_UNSANDBOXED_SERVICES: "1", AIDE_DEFAULT_MODEL: "s1" },
      models: { s2: [{ text: call.write("b.txt", "y") }], s3: [{ text: "Nothing to do." }] },
    });
  });
  afterAll(async () => stack?.stop());

  it("is refused with WORKSPACE_BUSY naming the running session; allow_concurrent starts it; after the first ends a start is accepted", async () => {
    const first = await stack.command("start", { task: "Create a.txt", workspace: stack.workspace });
    expect(first).toMatchObject({ ok: true });
    const session = first.result.session as string;
    await stack.waitFor((e) => e.session === session && e.type === "approval.requested");

    const refused = await stack.command("start", { task: "Create b.txt", workspace: stack.workspace, model: "s2" });
    expect(refused).toMatchObject({ ok: false, error: { code: "WORKSPACE_BUSY", details: { session } } });
    expect(refused.error.message).toContain(session);
    expect(refused.error.message).toContain(stack.workspace);

    const concurrent = await stack.command("start", { task: "Create b.txt", workspace: stack.workspace, model: "s2", allow_concurrent: true });
    expect(concurrent).toMatchObject({ ok: true });
    const second = concurrent.result.session as string;
    await stack.waitFor((e) => e.session === second && e.type === "approval.requested");

    for (const id of [session, second]) {
      expect(await stack.command("abort", { session: id, reason: "done" })).toMatchObject({ ok: true });
      await stack.terminal(id);
    }
    expect(await stack.command("start", { task: "Say hello", workspace: stack.workspace, model: "s3" })).toMatchObject({ ok: true });
  });
});
