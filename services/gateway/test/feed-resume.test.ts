import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { eventStreamName } from "@aide/contracts";
import { startHarness, until, type Harness } from "./gateway-harness.js";

let h: Harness;
beforeAll(async () => {
  // Short pulls: two missed heartbeats (1 s each) make a silent feed resume.
  h = await startHarness({ listen: true, feedExpiresMs: 2_000 });
});
afterAll(async () => h?.stop());

async function deleteConsumers(): Promise<number> {
  const jsm = await h.tester.jetstreamManager();
  const names: string[] = [];
  for await (const consumer of jsm.consumers.list(eventStreamName)) names.push(consumer.name);
  for (const name of names) await jsm.consumers.delete(eventStreamName, name).catch(() => undefined);
  return names.length;
}

/**
 * Issue 14 item 2: the gateway's per-session feed survives losing its consumer (its server died,
 * the stream changed leader): it resumes after the last event it delivered, and the WebSocket
 * client keeps receiving, without a gap or a duplicate, including the next approval.
 */
describe("the gateway's session feed after its consumer is lost", () => {
  it("resumes from the last delivered event: the client gets every later event once, in order, and the next approval", async () => {
    const started = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers({ "content-type": "application/json" }), payload: { task: "t", workspace: "/tmp/ws" } });
    const session = started.json().session as string;
    const seqs: number[] = [];
    const approvals: string[] = [];
    const ws = new WebSocket(`ws://127.0.0.1:${h.port}/api/events?session=${session}&since=0`, { headers: { authorization: `Bearer ${h.token}` } });
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type !== "event") return;
      seqs.push(frame.event.seq);
      if (frame.event.type === "approval.requested") approvals.push(frame.event.payload.approval);
    });
    const firstApproval = await until(() => approvals[0], "the first approval");
    const before = seqs.length;

    expect(await deleteConsumers()).toBeGreaterThan(0);
    for (let index = 0; index < 5; index += 1) await h.orchestrator.publish(session, "model.delta", { request_id: "m", text: `after ${index}` });
    await h.orchestrator.publish(session, "approval.requested", {
      approval: "second-approval",
      call_id: "c2",
      tool: "run_command",
      args: { command: "ls" },
      command: "ls",
      args_digest: "d",
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    const last = h.orchestrator.sessions.get(session)!.last_seq;
    await until(() => seqs.includes(last) || undefined, "the events published after the consumer was lost", 30_000);
    ws.close();
    expect(seqs.length).toBeGreaterThan(before);
    expect(seqs).toEqual(Array.from({ length: last }, (_unused, index) => index + 1));
    expect(approvals).toEqual([firstApproval, "second-approval"]);
  });
});
