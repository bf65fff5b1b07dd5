import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/** Each way a decision can miss its approval answers with its own code, over the real processes. */
describe.skipIf(!ready)(`decisions that cannot apply say why${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.write("a.txt", "x") }], {
      orchestratorEnv: { AIDE_DEFAULT_MODEL: "s1" },
      models: { s2: [{ text: call.write("b.txt", "y") }], s3: [{ text: call.write("c.txt", "z") }] },
    });
  });
  afterAll(async () => stack?.stop());

  async function pendingApproval(model: string, task: string): Promise<{ session: string; approval: string }> {
    const started = await stack.command("start", { task, workspace: stack.workspace, model, user: "dana", allow_concurrent: true });
    expect(started).toMatchObject({ ok: true });
    const session = started.result.session as string;
    const requested = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    return { session, approval: (requested.payload as { approval: string }).approval };
  }

  it("a second decision on the same approval is APPROVAL_ALREADY_DECIDED; an unknown id stays APPROVAL_NOT_FOUND", async () => {
    const { session, approval } = await pendingApproval("s1", "Create a.txt");
    expect(await stack.command("decision", { session, approval, decision: "reject", feedback: "no" })).toMatchObject({ ok: true });
    const again = await stack.command("decision", { session, approval, decision: "approve" });
    expect(again).toMatchObject({ ok: false, error: { code: "APPROVAL_ALREADY_DECIDED" } });
    expect(again.error.message).toContain("reject");
    expect(await stack.command("decision", { session, approval: "never-issued", decision: "approve" })).toMatchObject({ ok: false, error: { code: "APPROVAL_NOT_FOUND" } });
  });

  it("a decision for an approval whose run ended is APPROVAL_STALE_RUN", async () => {
    const { session, approval } = await pendingApproval("s2", "Create b.txt");
    expect(await stack.command("abort", { session, reason: "stop" })).toMatchObject({ ok: true });
    await stack.terminal(session);
    expect(await stack.command("decision", { session, approval, decision: "approve" })).toMatchObject({ ok: false, error: { code: "APPROVAL_STALE_RUN" } });
  });

  it("another session's approval is APPROVAL_WRONG_SESSION, and the other session is not named", async () => {
    const first = (await stack.command("sessions", { user: "dana" })).result.sessions[0].id as string;
    const { session, approval } = await pendingApproval("s3", "Create c.txt");
    const wrong = await stack.command("decision", { session: first, approval, decision: "approve" });
    expect(wrong).toMatchObject({ ok: false, error: { code: "APPROVAL_WRONG_SESSION" } });
    expect(wrong.error.message).not.toContain(session);
    // Still pending for its own session: the misdirected decision changed nothing.
    expect((await stack.command("status", { session })).result.approvals_pending.map((p: { id: string }) => p.id)).toEqual([approval]);
    expect(stack.invalidEvents).toEqual([]);
  });
});

describe.skipIf(!ready)(`a decision after the approval timed out${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.write("a.txt", "x") }], { orchestratorEnv: { AIDE_DEFAULT_MODEL: "s1", AIDE_APPROVAL_TIMEOUT_MS: "300" } });
  });
  afterAll(async () => stack?.stop());

  it("is APPROVAL_EXPIRED", async () => {
    const started = await stack.command("start", { task: "Create a.txt", workspace: stack.workspace, allow_concurrent: true });
    const session = started.result.session as string;
    const requested = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    const approval = (requested.payload as { approval: string }).approval;
    await stack.waitFor((e) => e.session === session && e.type === "approval.decided" && (e.payload as { decision: string }).decision === "timeout");
    expect(await stack.command("decision", { session, approval, decision: "approve" })).toMatchObject({ ok: false, error: { code: "APPROVAL_EXPIRED" } });
  });
});
