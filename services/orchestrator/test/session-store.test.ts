import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { ensureJetStream, lastEventSeq, type JetStreamHandles } from "../src/bus/jetstream-setup.js";
import { kvSessionStore } from "../src/session/session-store.js";
import { newSessionRecord, type SessionRecord } from "../src/session/session-record.js";

function record(id: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const base = newSessionRecord({ id, user: "u", workspace: "/w", mode: "act", task: "t", max_iterations: 25 }, new Date(0).toISOString());
  return { ...base, state: "running", ...overrides };
}

/** The durable side over a real nats-server, as the orchestrator's own bus user. */
describe("JetStream session store, leases and event sequence", () => {
  let bus: TestBus;
  let connection: NatsConnection;
  let handles: JetStreamHandles;
  beforeAll(async () => {
    bus = await startTestBus();
    connection = await bus.connectAs("orchestrator");
    handles = await ensureJetStream(connection);
  });
  afterAll(async () => bus?.stop());

  it("round-trips records and lists them", async () => {
    const store = kvSessionStore(handles.sessions);
    await store.put(record("s1", { task: "first" }));
    await store.put(record("s2"));
    expect((await store.get("s1"))?.task).toBe("first");
    expect((await store.list()).map((r) => r.id).sort()).toEqual(["s1", "s2"]);
    expect(await store.get("missing")).toBeUndefined();
  });

  it("of two instances claiming an expired lease at once, exactly one wins; a live lease is not taken", async () => {
    const store = kvSessionStore(handles.sessions);
    const now = new Date(1_000_000);
    await store.put(record("s3", { owner: "dead", lease_until: new Date(999_000).toISOString() }));
    const claims = await Promise.all([store.claim("s3", "a", now, 30_000), store.claim("s3", "b", now, 30_000)]);
    const winners = claims.filter((claim) => claim !== undefined);
    expect(winners).toHaveLength(1);
    const owner = winners[0]!.owner!;
    expect((await store.get("s3"))?.owner).toBe(owner);
    const other = owner === "a" ? "b" : "a";
    expect(await store.claim("s3", other, now, 30_000)).toBeUndefined();
    expect(await store.claim("s3", owner, now, 30_000)).toBeDefined();
  });

  it("the last event seq of a session is counted from the stream, per session", async () => {
    const encoder = new TextEncoder();
    for (let seq = 1; seq <= 5; seq += 1) await handles.js.publish(`agent.evt.x1.t${seq % 2}.done`, encoder.encode(JSON.stringify({ seq })));
    await handles.js.publish("agent.evt.x2.run.created", encoder.encode("{}"));
    expect(await lastEventSeq(handles.jsm, "x1")).toBe(5);
    expect(await lastEventSeq(handles.jsm, "x2")).toBe(1);
    expect(await lastEventSeq(handles.jsm, "none")).toBe(0);
  });

  it("the streams are file-backed and the egress journal is its own stream", async () => {
    const events = await handles.jsm.streams.info("AGENT_EVENTS");
    const audit = await handles.jsm.streams.info("AGENT_AUDIT");
    expect(events.config).toMatchObject({ subjects: ["agent.evt.>"], storage: "file" });
    expect(audit.config).toMatchObject({ subjects: ["agent.audit.>"], storage: "file" });
  });
});

describe("encodeRecord", () => {
  it("keeps a session that outgrew one KV value storable, cutting only old tool output", async () => {
    const { encodeRecord } = await import("../src/session/session-store.js");
    const big = "y".repeat(60_000);
    const transcript = Array.from({ length: 30 }, (_, index) => ({ role: index % 2 === 0 ? ("assistant" as const) : ("user" as const), content: index % 2 === 0 ? `call ${index}` : big }));
    const data = encodeRecord(record("big", { transcript }));
    expect(data.length).toBeLessThanOrEqual(900_000);
    const stored = JSON.parse(new TextDecoder().decode(data)) as SessionRecord;
    expect(stored.transcript).toHaveLength(30);
    expect(stored.transcript.at(-1)!.content).toBe(big);
    expect(stored.transcript[1].content).toMatch(/cut to fit/);
    expect(stored.transcript[0].content).toBe("call 0");
  });
});
