import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startHarness, until, type Harness } from "./gateway-harness.js";

let h: Harness;

interface Client {
  raw: { pause(): void; resume(): void };
  frames: any[];
  seqs(): number[];
  closed: Promise<number>;
  close(): void;
}

async function connect(session: string, since: number): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${h.port}/api/events?session=${session}&since=${since}`, { headers: { authorization: `Bearer ${h.token}` } });
  const frames: any[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(String(data))));
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  return { raw: (ws as any)._socket, frames, seqs: () => frames.filter((f) => f.type === "event").map((f) => f.event.seq), closed, close: () => ws.close() };
}

async function start(): Promise<string> {
  const response = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers({ "content-type": "application/json" }), payload: { task: "t", workspace: "/tmp/ws" } });
  return response.json().session;
}

// The hub keeps recent events in memory; with a ring of 4 every reconnect below replays through
// its own JetStream consumer first and joins the hub where they overlap.
describe.each([{ ring: 5000 }, { ring: 4 }])("WebSocket /api/events (hub ring of $ring events)", ({ ring }) => {
  beforeAll(async () => {
    h = await startHarness({ listen: true, hubRingEvents: ring });
  });
  afterAll(async () => h?.stop());

  it("unknown session: an error frame and close 4404", async () => {
    const client = await connect("nosuch", 0);
    expect(await client.closed).toBe(4404);
    expect(client.frames[0]).toMatchObject({ type: "error", error: { code: "SESSION_NOT_FOUND" } });
  });

  it("disconnect mid-run, reconnect with since: contiguous, no duplicates, across replay and live", async () => {
    const session = await start();
    await until(() => h.orchestrator.sessions.get(session)?.state === "awaiting_approval", "the approval");
    const first = await connect(session, 0);
    await until(() => first.seqs().length >= 3 || undefined, "three events");
    first.close();
    await first.closed;
    const received = first.seqs();
    // Events keep coming while the client is away, and while it replays.
    for (let index = 0; index < 20; index += 1) await h.orchestrator.publish(session, "model.delta", { request_id: "m2", text: `away ${index}` });
    const since = received[received.length - 1];
    const second = await connect(session, since);
    const live = (async () => {
      for (let index = 0; index < 30; index += 1) await h.orchestrator.publish(session, "model.delta", { request_id: "m3", text: `live ${index}` });
    })();
    await live;
    const last = h.orchestrator.sessions.get(session)!.last_seq;
    await until(() => second.seqs().includes(last) || undefined, "the last live event");
    const all = [...received, ...second.seqs()];
    expect(all).toEqual(Array.from({ length: last }, (_unused, index) => index + 1));
    expect(second.frames.filter((f) => f.type === "ready")).toHaveLength(1);
    second.close();
  });

  it("a pending approval is delivered again on reconnect and decided once", async () => {
    const session = await start();
    await until(() => h.orchestrator.sessions.get(session)?.state === "awaiting_approval", "the approval");
    const first = await connect(session, 0);
    await until(() => first.frames.find((f) => f.type === "ready"), "ready");
    const requested = first.frames.find((f) => f.type === "event" && f.event.type === "approval.requested").event;
    const lastSeen = Math.max(...first.seqs());
    first.close();
    await first.closed;

    const [a, b] = [await connect(session, lastSeen), await connect(session, lastSeen)];
    for (const client of [a, b]) {
      await until(() => client.frames.find((f) => f.type === "ready"), "ready");
      const pending = client.frames.filter((f) => f.type === "approval.pending");
      expect(pending).toHaveLength(1);
      expect(pending[0].event).toMatchObject({ seq: requested.seq, payload: { approval: requested.payload.approval, diff: expect.stringContaining("+new line") } });
      expect(client.seqs()).toEqual([]);
    }
    const decide = () =>
      h.gateway.app.inject({
        method: "POST",
        url: "/api/agent/decision",
        headers: h.headers({ "content-type": "application/json" }),
        payload: { session, approval: requested.payload.approval, decision: "approve" },
      });
    const [one, two] = await Promise.all([decide(), decide()]);
    expect([one.statusCode, two.statusCode].sort()).toEqual([200, 404]);
    expect(h.orchestrator.decisions.filter((d) => d.session === session && d.accepted)).toHaveLength(1);
    await until(() => a.frames.find((f) => f.type === "event" && f.event.type === "run.completed"), "run.completed");
    expect(a.frames.filter((f) => f.type === "event" && f.event.type === "approval.decided")).toHaveLength(1);

    // After the decision, a reconnect no longer re-sends it.
    const c = await connect(session, 0);
    await until(() => c.frames.find((f) => f.type === "ready"), "ready");
    expect(c.frames.filter((f) => f.type === "approval.pending")).toHaveLength(0);
    for (const client of [a, b, c]) client.close();
  });

  it("a client that reads slowly is back-pressured, not given a gap", async () => {
    const session = await start();
    const big = "x".repeat(32 * 1024);
    for (let index = 0; index < 200; index += 1) await h.orchestrator.publish(session, "model.delta", { request_id: "big", text: big });
    const client = await connect(session, 0);
    // Stop reading for a while: the gateway's send buffer fills and it must pause, not drop.
    const raw = (client as any).raw;
    raw.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    raw.resume();
    const last = h.orchestrator.sessions.get(session)!.last_seq;
    await until(() => client.seqs().includes(last) || undefined, "every event");
    expect(client.seqs()).toEqual(Array.from({ length: last }, (_unused, index) => index + 1));
    client.close();
  });
});
