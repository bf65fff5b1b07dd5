import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subjects } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/** Every `agent.cmd.*` subject of the real orchestrator process, with its error codes. */
describe.skipIf(!ready)(`orchestrator commands over the bus${skipReason}`, () => {
  let stack: Stack;
  let session = "";
  beforeAll(async () => {
    stack = await startStack([{ text: call.write("a.txt", "x") }], { orchestratorEnv: { AIDE_UNSANDBOXED_SERVICES: "1", AIDE_DEFAULT_MODEL: "s1" } });
  });
  afterAll(async () => stack?.stop());

  it("registers every command endpoint of the contract as a micro service", async () => {
    const info = JSON.parse(new TextDecoder().decode((await stack.tester.request("$SRV.INFO.aide-orchestrator", new Uint8Array(), { timeout: 2_000 })).data));
    expect(info.endpoints.map((endpoint: { subject: string }) => endpoint.subject).sort()).toEqual(
      // Every command subject of the contract, and nothing else.
      Object.values(subjects.cmd).sort(),
    );
  });

  it("refuses bad bodies, foreign workspaces and unknown sessions with stable codes", async () => {
    expect(await stack.command("start", { task: "" })).toMatchObject({ ok: false, error: { code: "VALIDATION" } });
    expect(await stack.command("start", { task: "x", workspace: "/etc" })).toMatchObject({ ok: false, error: { code: "WORKSPACE_NOT_ALLOWED" } });
    expect(await stack.command("status", { session: "nope" })).toMatchObject({ ok: false, error: { code: "SESSION_NOT_FOUND" } });
    expect(await stack.command("abort", { session: "nope" })).toMatchObject({ ok: false, error: { code: "SESSION_NOT_FOUND" } });
    const raw = await stack.tester.request("agent.cmd.status", new TextEncoder().encode("{not json"), { timeout: 5_000 });
    expect(JSON.parse(new TextDecoder().decode(raw.data))).toMatchObject({ ok: false, error: { code: "BAD_JSON" } });
  });

  it("start says unsandboxed services in run.created; one run per session", async () => {
    const started = await stack.command("start", { task: "Create a.txt", workspace: stack.workspace, user: "bob" });
    expect(started).toMatchObject({ ok: true, result: { state: "running" } });
    session = started.result.session;
    const created = await stack.waitFor((e) => e.session === session && e.type === "run.created");
    expect(created.payload).toMatchObject({ unsandboxed_services: true, model: "s1", workspace: stack.workspace });
    await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    expect(await stack.command("start", { task: "again", workspace: stack.workspace, session })).toMatchObject({ ok: false, error: { code: "ALREADY_RUNNING" } });
    expect(await stack.command("restore", { session, checkpoint: "a".repeat(40) })).toMatchObject({ ok: false, error: { code: "ALREADY_RUNNING" } });
    expect(await stack.command("decision", { session, approval: "unknown", decision: "approve" })).toMatchObject({ ok: false, error: { code: "APPROVAL_NOT_FOUND" } });
  });

  it("status, sessions, mode and message answer during the run", async () => {
    const status = await stack.command("status", { session });
    expect(status.result).toMatchObject({ id: session, user: "bob", state: "awaiting_approval", mode: "act" });
    const sessions = await stack.command("sessions", { user: "bob" });
    expect(sessions.result.sessions.map((s: { id: string }) => s.id)).toEqual([session]);
    expect((await stack.command("sessions", { user: "carol" })).result.sessions).toEqual([]);
    const moded = await stack.command("mode", { session, mode: "plan" });
    expect(moded).toMatchObject({ ok: true, result: { mode: "plan" } });
    const changed = await stack.waitFor((e) => e.session === session && e.type === "mode.changed");
    // The reply names the event seq its mode is current at: the mode.changed it emitted, or later.
    expect(moded.result.seq).toBeGreaterThanOrEqual(changed.seq);
    expect(await stack.command("message", { session, text: "also add a newline" })).toMatchObject({ ok: true, result: { state: "awaiting_approval" } });
    await stack.waitFor((e) => e.session === session && e.type === "message.received");
  });

  it("abort ends the run and nothing stays pending", async () => {
    const aborted = await stack.command("abort", { session, reason: "enough" });
    expect(aborted).toMatchObject({ ok: true, result: { state: "aborted" } });
    const end = await stack.terminal(session);
    expect(end).toMatchObject({ type: "run.cancelled", payload: { reason: "enough" } });
    expect((await stack.command("status", { session })).result).toMatchObject({ state: "aborted", approvals_pending: [] });
    expect(await stack.command("abort", { session })).toMatchObject({ ok: false, error: { code: "NOT_RUNNING" } });
    expect(stack.invalidEvents).toEqual([]);
  });
});
