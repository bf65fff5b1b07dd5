import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KV, NatsConnection } from "nats";
import pino from "pino";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { kvWorkspaceLock, lockKey, openWorkspaceLockBucket } from "../src/workspace/kv-workspace-lock.js";

/** The real bucket, with a count of the calls made through it (nothing is answered here). */
function counted(kv: KV): { kv: KV; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(kv, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { kv: proxy, calls };
}

describe("the KV workspace lock (real nats-server, JetStream KV)", () => {
  let bus: TestBus;
  let connection: NatsConnection;
  let bucket: KV;
  const logger = pino({ level: "silent" });
  const never = new AbortController().signal;

  beforeAll(async () => {
    bus = await startTestBus();
    connection = await bus.connectAs("checkpoints");
    bucket = await openWorkspaceLockBucket(connection);
  });
  afterAll(async () => {
    await connection?.close();
    await bus?.stop();
  });

  it("takes a lock it released itself with one revision-checked update, and holds it (the entry is ours)", async () => {
    const { kv, calls } = counted(bucket);
    const lock = kvWorkspaceLock({ kv, logger, leaseMs: 60_000 });
    const release = await lock.acquire("/ws/one", never);
    await release();
    calls.length = 0;
    const again = await lock.acquire("/ws/one", never);
    expect(calls).toEqual(["update"]);
    const entry = await bucket.get(lockKey("/ws/one"));
    expect(entry?.operation).toBe("PUT");
    await again();
    expect((await bucket.get(lockKey("/ws/one")))?.operation).toBe("DEL");
  });

  it("never takes over a holder that got the lock after our release: it waits for that holder's release", async () => {
    const watched = counted(bucket);
    const ours = kvWorkspaceLock({ kv: watched.kv, logger, leaseMs: 60_000, pollMs: 20 });
    const theirs = kvWorkspaceLock({ kv: bucket, logger, leaseMs: 60_000, pollMs: 20 });
    await (await ours.acquire("/ws/two", never))();
    const theirRelease = await theirs.acquire("/ws/two", never);
    const events: string[] = [];
    watched.calls.length = 0;
    const ourTurn = ours.acquire("/ws/two", never).then((release) => {
      events.push("ours acquired");
      return release;
    });
    // Until our waiter has tried the shortcut and then looked at the entry twice (it is theirs).
    while (watched.calls.filter((call) => call === "get").length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(watched.calls[0]).toBe("update");
    expect(events).toEqual([]);
    expect((await bucket.get(lockKey("/ws/two")))?.operation).toBe("PUT");
    events.push("theirs released");
    await theirRelease();
    await (await ourTurn)();
    expect(events).toEqual(["theirs released", "ours acquired"]);
  });

  it("falls back to the full take when the bucket was written between our last write and our release", async () => {
    const { kv, calls } = counted(bucket);
    const lock = kvWorkspaceLock({ kv, logger, leaseMs: 60_000 });
    const releaseThree = await lock.acquire("/ws/three", never);
    const releaseOther = await lock.acquire("/ws/other", never);
    await releaseThree();
    await releaseOther();
    calls.length = 0;
    const release = await lock.acquire("/ws/three", never);
    expect(calls[0]).toBe("update");
    expect(calls).toContain("create");
    expect((await bucket.get(lockKey("/ws/three")))?.operation).toBe("PUT");
    await release();
  });
});
