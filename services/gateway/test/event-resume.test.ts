import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { openEventStream } from "../../../cli/src/client/event-stream.js";
import { startHarness, until, type Harness } from "./gateway-harness.js";

let h: Harness;
beforeAll(async () => {
  // Small limits so a client that stops reading overflows its queue quickly.
  h = await startHarness({ listen: true, wsFeed: { highWaterBytes: 64 * 1024, maxQueuedFrames: 40 } });
});
afterAll(async () => h?.stop());

async function start(): Promise<string> {
  const response = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers({ "content-type": "application/json" }), payload: { task: "t", workspace: "/tmp/ws" } });
  return response.json().session as string;
}

describe("a client that falls behind", () => {
  it("is closed with resume (4008) after what it was sent, and a reconnect with since gets the rest: no gap, no duplicate", async () => {
    const session = await start();
    const big = "x".repeat(16 * 1024);
    for (let index = 0; index < 400; index += 1) await h.orchestrator.publish(session, "model.delta", { request_id: "m", text: big });
    const last = h.orchestrator.sessions.get(session)!.last_seq;

    const ws = new WebSocket(`ws://127.0.0.1:${h.port}/api/events?session=${session}&since=0`, { headers: { authorization: `Bearer ${h.token}` } });
    const first: number[] = [];
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === "event") first.push(frame.event.seq);
    });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    await new Promise((resolve) => ws.once("open", resolve));
    // Stop reading: the kernel buffers fill, then the gateway's queue, then it gives up on us.
    const raw = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    raw.resume();
    expect(await closed).toBe(4008);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(last);
    expect(first).toEqual(Array.from({ length: first.length }, (_unused, index) => index + 1));

    const rest: number[] = [];
    const drops: number[] = [];
    const stream = openEventStream({
      baseUrl: `http://127.0.0.1:${h.port}`,
      token: h.token,
      session,
      since: first[first.length - 1],
      onReconnect: (code) => drops.push(code),
      onFrame(frame) {
        if (frame.type === "event") rest.push(Number(frame.event.seq));
      },
    });
    await until(() => rest.includes(last) || undefined, "the last event", 60_000);
    stream.close();
    expect([...first, ...rest]).toEqual(Array.from({ length: last }, (_unused, index) => index + 1));
  });
});
