import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";
import { coalesceWrites, coalesceWritesFromEnv, connectBus, createLogger } from "../src/index.js";

/** Counts the socket writes of a connection: nats.js hands each drained buffer to `transport.send`. */
function countWrites(connection: NatsConnection): { count: () => number } {
  const transport = (connection as unknown as { protocol: { transport: { send: (frame: Uint8Array) => void } } }).protocol.transport;
  const send = transport.send.bind(transport);
  let count = 0;
  transport.send = (frame) => {
    count += 1;
    send(frame);
  };
  return { count: () => count };
}

/** Twenty publishes in one event-loop turn, each after an await: the way services publish. */
async function publishAcrossContinuations(connection: NatsConnection, subject: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    await Promise.resolve();
    connection.publish(subject, new TextEncoder().encode(String(i)));
  }
}

describe("coalesced bus writes (AIDE_BUS_COALESCE_WRITES)", () => {
  let bus: TestBus;
  const logger = createLogger("coalesce-test", { level: "silent" });
  const connect = (coalesce: boolean) =>
    connectBus({ config: { url: bus.url, credentials: bus.credentials("tester") }, name: `coalesce-${coalesce}`, logger, reconnect: false, coalesceWrites: coalesce });

  beforeAll(async () => {
    bus = await startTestBus();
  });
  afterAll(async () => {
    await bus?.stop();
  });

  it("writes one turn's publishes in one write, in order, where the library writes one per continuation", async () => {
    const receiver = await bus.connectAs("tester");
    const seen: string[] = [];
    // A callback runs as each message is read, so everything before the PONG is in `seen` by then.
    receiver.subscribe("coalesce.order", { callback: (_error, message) => seen.push(new TextDecoder().decode(message.data)) });
    await receiver.flush();
    const plain = await connect(false);
    const coalesced = await connect(true);
    try {
      const plainWrites = countWrites(plain);
      const coalescedWrites = countWrites(coalesced);
      await publishAcrossContinuations(plain, "coalesce.plain", 20);
      await publishAcrossContinuations(coalesced, "coalesce.order", 20);
      await new Promise((resolve) => setImmediate(resolve));
      expect(plainWrites.count()).toBeGreaterThanOrEqual(10);
      expect(coalescedWrites.count()).toBe(1);
      // flush() is a PING behind everything queued: its PONG means the server has the messages.
      await coalesced.flush();
      await receiver.flush();
      expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    } finally {
      await Promise.all([plain.close(), coalesced.close(), receiver.close()]);
    }
  });

  it("still answers requests and writes a burst past the library's pending limit at once", async () => {
    const responder = await bus.connectAs("tester");
    const sub = responder.subscribe("coalesce.echo");
    void (async () => {
      for await (const message of sub) message.respond(message.data);
    })();
    await responder.flush();
    const coalesced = await connect(true);
    try {
      const reply = await coalesced.request("coalesce.echo", new TextEncoder().encode("ping"), { timeout: 5000 });
      expect(new TextDecoder().decode(reply.data)).toBe("ping");
      const writes = countWrites(coalesced);
      const limit = (coalesced as unknown as { protocol: { pendingLimit: number } }).protocol.pendingLimit;
      const payload = new Uint8Array(16 * 1024);
      for (let sent = 0; sent <= limit; sent += payload.length) coalesced.publish("coalesce.burst", payload);
      // Written inline, before the turn ends, as nats.js does at its limit.
      expect(writes.count()).toBeGreaterThanOrEqual(1);
      await coalesced.flush();
    } finally {
      await Promise.all([coalesced.close(), responder.close()]);
    }
  });

  it("leaves a connection without the expected internals as it is", () => {
    expect(coalesceWrites({} as NatsConnection)).toBe(false);
    expect(coalesceWrites({ protocol: { flushPending: () => undefined } } as unknown as NatsConnection)).toBe(false);
  });

  it("reads the setting: off by default, on, and a clear error for anything else", () => {
    expect(coalesceWritesFromEnv({})).toBe(false);
    expect(coalesceWritesFromEnv({ AIDE_BUS_COALESCE_WRITES: "" })).toBe(false);
    expect(coalesceWritesFromEnv({ AIDE_BUS_COALESCE_WRITES: "on" })).toBe(true);
    expect(coalesceWritesFromEnv({ AIDE_BUS_COALESCE_WRITES: "off" })).toBe(false);
    expect(() => coalesceWritesFromEnv({ AIDE_BUS_COALESCE_WRITES: "yes" })).toThrow(/AIDE_BUS_COALESCE_WRITES must be "on" or "off"/);
    let refused: unknown;
    try {
      coalesceWritesFromEnv({ AIDE_BUS_COALESCE_WRITES: "1" });
    } catch (error) {
      refused = error;
    }
    expect((refused as { code?: string } | undefined)?.code).toBe("CONFIG_INVALID");
  });
});
