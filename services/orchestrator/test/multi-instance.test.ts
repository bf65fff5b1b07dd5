import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { assertContiguous, stackSkipReason, startStack, type Stack } from "./support/stack.js";
import type { ServiceProcess } from "../../../tests/helpers/service-process.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/**
 * Two orchestrator instances in the command queue group (ARCHITECTURE §2): whichever instance a
 * command reaches, it applies to the run (forwarded to the owner); when the owner dies, the other
 * takes the session over once the lease expires and offers the pending approval again.
 */
describe.skipIf(!ready)(`two orchestrators sharing the queue group${skipReason}`, () => {
  let stack: Stack;
  const instances: Record<string, ServiceProcess> = {};
  beforeAll(async () => {
    const script = [{ text: call.write("a.txt", "x") }, { text: call.read("a.txt") }, { text: call.complete("wrote a.txt") }];
    const second = [{ text: call.write("b.txt", "y") }, { text: call.read("b.txt") }, { text: call.complete("wrote b.txt") }];
    const third = [{ text: call.write("c.txt", "z") }, { text: call.read("c.txt") }, { text: call.complete("wrote c.txt") }];
    stack = await startStack(script, { orchestratorEnv: { AIDE_LEASE_MS: "3000" }, models: { s2: second, s3: third } });
    instances["orch-a"] = stack.services.orchestrator;
    await stack.services.orchestrator.stop();
    instances["orch-a"] = await stack.startOrchestrator({ AIDE_ORCHESTRATOR_ID: "orch-a" });
    instances["orch-b"] = await stack.startOrchestrator({ AIDE_ORCHESTRATOR_ID: "orch-b" });
  });
  afterAll(async () => stack?.stop());

  async function ownerOf(session: string): Promise<string> {
    const kv = await stack.tester.jetstream().views.kv("aide_sessions");
    const entry = await kv.get(session);
    return JSON.parse(new TextDecoder().decode(entry!.value)).owner;
  }

  it("commands reach the run whichever instance receives them", async () => {
    const started = await stack.command("start", { task: "Create a.txt", workspace: stack.workspace });
    const session = started.result.session as string;
    const requested = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    expect(["orch-a", "orch-b"]).toContain(await ownerOf(session));
    for (let index = 1; index <= 4; index += 1) {
      expect(await stack.command("message", { session, text: `note ${index}` })).toMatchObject({ ok: true });
    }
    // Auto-approve changes too (agent.cmd.auto_approve): each one lands in the owner's record, none lost.
    const rules = Array.from({ length: 8 }, (_, index) => `echo rule${index + 1}`);
    for (const rule of rules) expect(await stack.command("auto_approve", { session, add_commands: [rule] })).toMatchObject({ ok: true });
    expect((await stack.command("status", { session })).result.auto_approve).toEqual({ edits: false, commands: rules });
    const decided = await stack.command("decision", { session, approval: (requested.payload as { approval: string }).approval, decision: "approve" });
    expect(decided).toMatchObject({ ok: true, result: { accepted: true } });
    const end = await stack.terminal(session);
    expect(end.payload).toMatchObject({ state: "done" });
    const requests = stack.modelRequests();
    const second = JSON.stringify(requests[1].messages);
    for (let index = 1; index <= 4; index += 1) expect(second).toContain(`note ${index}`);
    assertContiguous(stack.events, session);
  });

  it("when the owner is killed, the other instance takes the session over after the lease and re-offers the approval", async () => {
    const started = await stack.command("start", { task: "Create b.txt", workspace: stack.workspace, model: "s2" });
    expect(started, JSON.stringify(started)).toMatchObject({ ok: true });
    const session = started.result.session as string;
    const first = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    const owner = await ownerOf(session);
    const survivor = owner === "orch-a" ? "orch-b" : "orch-a";
    await instances[owner].stop("SIGKILL");
    const again = await stack.waitFor((e) => e.session === session && e.type === "approval.requested" && e.seq > first.seq, 30_000);
    expect((again.payload as { approval: string }).approval).toBe((first.payload as { approval: string }).approval);
    expect(await ownerOf(session)).toBe(survivor);
    const decided = await stack.command("decision", { session, approval: (first.payload as { approval: string }).approval, decision: "approve" });
    expect(decided).toMatchObject({ ok: true });
    const end = await stack.terminal(session);
    expect(end.payload).toMatchObject({ state: "done" });
    expect(readFileSync(join(stack.workspace, "b.txt"), "utf8")).toContain("y");
    assertContiguous(stack.events, session);
    expect(instances[survivor].logs()).toContain("resuming a session");
  });

  it("an instance paused past its lease loses the session and keeps no stale copy that refuses the workspace later", async () => {
    // The previous test killed one instance: both run again (the killed one under its own id).
    for (const id of ["orch-a", "orch-b"]) {
      const child = instances[id].child;
      if (child.exitCode !== null || child.signalCode !== null) instances[id] = await stack.startOrchestrator({ AIDE_ORCHESTRATOR_ID: id });
    }
    const started = await stack.command("start", { task: "Create c.txt", workspace: stack.workspace, model: "s3" });
    expect(started, JSON.stringify(started)).toMatchObject({ ok: true });
    const session = started.result.session as string;
    const first = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    const owner = await ownerOf(session);
    const survivor = owner === "orch-a" ? "orch-b" : "orch-a";
    instances[owner].child.kill("SIGSTOP");
    try {
      await stack.waitFor((e) => e.session === session && e.type === "approval.requested" && e.seq > first.seq, 30_000);
      expect(await ownerOf(session)).toBe(survivor);
    } finally {
      instances[owner].child.kill("SIGCONT");
    }
    // Its next lease renewal finds the record changed under a live lease: it stops running the session.
    await expect.poll(() => instances[owner].logs().includes("another instance took the session over"), { timeout: 20_000 }).toBe(true);
    const decided = await stack.command("decision", { session, approval: (first.payload as { approval: string }).approval, decision: "approve" });
    expect(decided).toMatchObject({ ok: true });
    expect((await stack.terminal(session)).payload).toMatchObject({ state: "done" });
    // Starts reach either instance (queue group): none may be refused for the finished run.
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      const next = await stack.command("start", { task: `Say hello ${attempt}`, workspace: stack.workspace, model: "s3" });
      expect(next, JSON.stringify(next)).toMatchObject({ ok: true });
      await stack.terminal(next.result.session as string);
    }
  });
});
