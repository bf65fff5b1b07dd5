import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@aide/contracts";
import { startGatewayOnStack, type GatewayOnStack } from "./support/gateway-on-stack.js";
import { call } from "./support/scripted-calls.js";
import { built, stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason() || (built("gateway") ? "" : " [SKIPPED: the gateway is not built; run npx tsc -b]");
const remember = (text: string) => `<remember>\n<text>${text}</text>\n</remember>`;

/**
 * Issue 25: a session's auto-approve rules changed mid-run through the real gateway
 * (`POST /api/agent/auto-approve` → `agent.cmd.auto_approve`) over the real orchestrator, model,
 * tools and checkpoints. A command rule added while the run waits auto-approves the next matching
 * command; with `edits` on and rules for the commands, a protected-path write, a secret read, a
 * memory change and a network command still ask.
 */
describe.skipIf(skipReason !== "")(`auto-approve rules changed mid-run${skipReason}`, () => {
  let stack: Stack;
  let gateway: GatewayOnStack;
  let session = "";
  const ofSession = (event: AgentEvent) => event.session === session && event.depth === 0;
  const asked = (predicate: (payload: Record<string, any>) => boolean) =>
    stack.waitFor((event) => ofSession(event) && event.type === "approval.requested" && predicate(event.payload as Record<string, any>), 40_000);
  const decide = async (approval: string, body: Record<string, unknown>) => {
    const reply = await gateway.call("POST", "/api/agent/decision", { session, approval, ...body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  };

  beforeAll(async () => {
    stack = await startStack([
      { text: call.run("echo one") },
      { text: call.run("echo two") },
      { text: call.write(".github/workflows/ci.yml", "on: push") },
      { text: call.read(".env") },
      { text: remember("The person prefers tabs.") },
      { text: call.run("curl -sS --max-time 2 http://127.0.0.1:9/") },
      { text: call.complete("Ran echo one and echo two.") },
    ]);
    writeFileSync(join(stack.workspace, ".env"), "API_TOKEN=not-a-real-token\n");
    gateway = await startGatewayOnStack(stack);
  }, 150_000);

  afterAll(async () => {
    await gateway?.process.stop();
    await stack?.stop();
  });

  it("a rule added while the run waits auto-approves the next matching command; protected writes, secret reads, memory and network still ask", async () => {
    const started = await gateway.call("POST", "/api/agent/start", { task: "Run echo one and echo two, and remember that I prefer tabs", workspace: stack.workspace });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    session = started.body.session;
    const first = await asked((payload) => payload.command === "echo one");

    const changed = await gateway.call("POST", "/api/agent/auto-approve", { session, edits: true, add_commands: ["echo", "curl", "cat"] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.auto_approve).toMatchObject({ edits: true, commands: ["echo", "curl", "cat"] });
    const announced = await stack.waitFor((event) => ofSession(event) && event.type === "session.auto_approve_changed");
    expect(announced.payload).toEqual({ auto_approve: { edits: true, commands: ["echo", "curl", "cat"] } });
    const status = await gateway.call("GET", `/api/agent/status?id=${session}`);
    expect(status.body.auto_approve).toMatchObject({ edits: true, commands: ["echo", "curl", "cat"] });
    // The reply says which event its rules are current at: the announcement or a later one, never an earlier one.
    expect(changed.body.seq).toBeGreaterThanOrEqual(announced.seq);
    expect(changed.body.seq).toBeLessThanOrEqual(status.body.last_seq);

    // The call that already waits keeps waiting for its person; the next one rides on the rule.
    expect(stack.events.some((event) => ofSession(event) && event.type === "approval.decided" && event.payload.approval === first.payload.approval)).toBe(false);
    await decide(String(first.payload.approval), { decision: "approve" });
    const second = await stack.waitFor((event) => ofSession(event) && event.type === "tool.completed" && (event.payload.args as { command?: string }).command === "echo two", 60_000);
    expect(second.payload.is_error, JSON.stringify(second.payload)).toBe(false);
    const decidedFor = (callId: string) =>
      stack.events.find(
        (event) =>
          ofSession(event) &&
          event.type === "approval.decided" &&
          stack.events.some((request) => request.type === "approval.requested" && request.payload.approval === event.payload.approval && request.payload.call_id === callId),
      );
    expect(stack.events.filter((event) => ofSession(event) && event.type === "approval.requested" && event.payload.command === "echo two")).toEqual([]);
    expect(decidedFor(String(second.payload.call_id))).toBeUndefined();
    expect(stack.events.filter((event) => ofSession(event) && event.type === "approval.decided").map((event) => event.payload.decision)).toEqual(["approve", "auto"]);

    const protectedWrite = await asked((payload) => (payload.paths ?? []).includes(".github/workflows/ci.yml"));
    expect(protectedWrite.payload.protected.length).toBeGreaterThan(0);
    await decide(String(protectedWrite.payload.approval), { decision: "approve", confirm_protected: true });

    const secret = await asked((payload) => payload.kind === "secret_read");
    expect(secret.payload.paths).toEqual([".env"]);
    await decide(String(secret.payload.approval), { decision: "reject" });

    const memory = await asked((payload) => payload.kind === "memory");
    expect(memory.payload.memory).toMatchObject({ action: "remember", text: "The person prefers tabs." });
    await decide(String(memory.payload.approval), { decision: "reject" });

    const network = await asked((payload) => String(payload.command ?? "").startsWith("curl"));
    expect(network.payload.network).toBe("consent_required");
    await decide(String(network.payload.approval), { decision: "reject" });

    await stack.terminal(session, undefined, 60_000);
    expect(stack.invalidEvents).toEqual([]);
  }, 300_000);

  it("refuses what a rule may never cover, or a rule with shell control characters, with VALIDATION; removes a rule", async () => {
    for (const body of [
      { session, memory: true },
      { session, all: true },
      { session, add_commands: ["echo ok; curl x"] },
      { session, network: true },
    ]) {
      const refused = await gateway.call("POST", "/api/agent/auto-approve", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe("VALIDATION");
    }
    const unknown = await gateway.call("POST", "/api/agent/auto-approve", { session: "nosuchsession", edits: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("SESSION_NOT_FOUND");
    const removed = await gateway.call("POST", "/api/agent/auto-approve", { session, edits: false, remove_commands: ["curl"] });
    expect(removed.status).toBe(200);
    expect(removed.body.auto_approve).toEqual({ edits: false, commands: ["echo", "cat"] });
  });
});
