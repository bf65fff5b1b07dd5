import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageType, type KV, type NatsConnection, type ObjectStore } from "nats";
import { createLogger, sessionOverflowBucketName } from "@aide/runtime";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { spillingKv } from "../src/session/spilling-kv.js";

/** The session KV's overflow, against a real JetStream, as the orchestrator user (its permissions). */
describe("session values over one KV value spill into the object store", () => {
  let bus: TestBus;
  let connection: NatsConnection;
  let kv: KV;
  let objects: ObjectStore;
  beforeAll(async () => {
    bus = await startTestBus();
    connection = await bus.connectAs("orchestrator");
    const js = connection.jetstream();
    kv = await js.views.kv("aide_sessions", { history: 1, storage: StorageType.File });
    objects = await js.views.os(sessionOverflowBucketName, { storage: StorageType.File });
  });
  afterAll(async () => bus?.stop());

  const names = async () => (await objects.list()).filter((info) => !info.deleted).map((info) => info.name);

  it("a 3 MB value round-trips byte-exact; a small one stays in the KV; a replaced object is deleted", async () => {
    const store = spillingKv(kv, async () => objects, { limitBytes: 900_000, logger: createLogger("test", { level: "silent" }) });
    const large = randomBytes(3 * 1024 * 1024);
    await store.put("s1", large);
    const raw = await kv.get("s1");
    expect(raw!.value.length).toBeLessThan(1000);
    expect(Buffer.from((await store.get("s1"))!.value).equals(large)).toBe(true);
    const first = await names();
    expect(first.length).toBe(1);

    const larger = randomBytes(2 * 1024 * 1024);
    await store.put("s1", larger);
    expect(Buffer.from((await store.get("s1"))!.value).equals(larger)).toBe(true);
    for (let tries = 0; tries < 100 && (await names()).includes(first[0]!); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await names()).not.toContain(first[0]);

    await store.put("s1", new TextEncoder().encode('{"small":true}'));
    expect(new TextDecoder().decode((await store.get("s1"))!.value)).toBe('{"small":true}');
    for (let tries = 0; tries < 100 && (await names()).length > 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await names()).toEqual([]);
  });

  it("a lost compare-and-set leaves no object behind and the winner's value readable", async () => {
    const store = spillingKv(kv, async () => objects, { limitBytes: 900_000, logger: createLogger("test", { level: "silent" }) });
    const revision = await store.put("s2", randomBytes(1_500_000));
    const winner = randomBytes(1_200_000);
    await store.update("s2", winner, revision);
    await expect(store.update("s2", randomBytes(1_300_000), revision)).rejects.toThrow();
    expect(Buffer.from((await store.get("s2"))!.value).equals(winner)).toBe(true);
    for (let tries = 0; tries < 100 && (await names()).length > 1; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await names()).length).toBe(1);
  });
});
