import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import pino from "pino";
import { AideError } from "@aide/contracts";
import { ensureJetStream, lastEventSeq, type JetStreamHandles } from "../src/bus/jetstream-setup.js";
import { jetStreamSettingsFromEnv } from "../src/bus/jetstream-settings.js";
import { kvSessionStore, LeaseLostError } from "../src/session/session-store.js";
import { newSessionRecord, type SessionRecord } from "../src/session/session-record.js";

function record(id: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const base = newSessionRecord({ id, user: "u", workspace: "/w", mode: "act", task: "t", max_iterations: 25 }, new Date(0).toISOString());
  return { ...base, state: "running", ...overrides };
}

const silent = pino({ level: "silent" });

/** The durable side over a real nats-server, as the orchestrator's own bus user. */
describe("JetStream session store, leases and event sequence", () => {
  let bus: TestBus;
  let connection: NatsConnection;
  let handles: JetStreamHandles;
  beforeAll(async () => {
    bus = await startTestBus();
    connection = await bus.connectAs("orchestrator");
    handles = await ensureJetStream(connection, jetStreamSettingsFromEnv({ AIDE_EVENTS_MAX_AGE_MS: "86400000", AIDE_SESSIONS_MAX_BYTES: "50000000" }), silent);
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

  it("sweeps list only live sessions: a finished one is never read again, and its marker goes", async () => {
    const store = kvSessionStore(handles.sessions);
    await store.put(record("live1"));
    await store.put(record("ended1"));
    await store.put(record("ended1", { state: "done" }));
    await store.put(record("outbox1", { state: "done", outbox: [{ seq: 3, subject: "agent.evt.outbox1.run.completed", event: { seq: 3 } }] }));
    const live = (await store.listLive()).map((r) => r.id).sort();
    expect(live).toContain("live1");
    expect(live).toContain("outbox1");
    expect(live).not.toContain("ended1");
    // Every session is still listed for the sessions command, without the markers.
    const all = (await store.list()).map((r) => r.id);
    expect(all).toEqual(expect.arrayContaining(["live1", "ended1", "outbox1"]));
    expect(all.some((id) => id.startsWith("live."))).toBe(false);
  });

  it("a write over a record another instance took over (live lease) is refused with LeaseLostError, not applied", async () => {
    const mine = kvSessionStore(handles.sessions);
    const theirs = kvSessionStore(handles.sessions);
    await mine.put(record("taken", { owner: "me", lease_until: new Date(Date.now() + 60_000).toISOString() }));
    await theirs.put(record("taken", { owner: "them", lease_until: new Date(Date.now() + 60_000).toISOString(), task: "theirs" }));
    await expect(mine.put(record("taken", { owner: "me", lease_until: new Date(Date.now() + 60_000).toISOString(), task: "mine" }))).rejects.toBeInstanceOf(LeaseLostError);
    expect((await theirs.get("taken"))?.task).toBe("theirs");
  });

  it("the event stream and sessions bucket are created with the configured limits and retention", async () => {
    const events = await handles.jsm.streams.info("AGENT_EVENTS");
    expect(events.config).toMatchObject({ num_replicas: 1, max_age: 86_400_000 * 1_000_000, max_bytes: 1024 ** 3, duplicate_window: 600_000 * 1_000_000 });
    const sessions = await handles.jsm.streams.info("KV_aide_sessions");
    expect(sessions.config).toMatchObject({ num_replicas: 1, max_bytes: 50_000_000, max_age: 30 * 86_400_000 * 1_000_000 });
    expect(handles.mismatches).toEqual([]);
  });

  it("at a later start, settings that differ from what exists are reported (and refuse the start when strict)", async () => {
    const other = jetStreamSettingsFromEnv({ AIDE_EVENTS_MAX_AGE_MS: "3600000" });
    const again = await ensureJetStream(connection, other, silent);
    expect(again.mismatches).toEqual(expect.arrayContaining([expect.stringMatching(/^AGENT_EVENTS\.max_age is 86400000000000, the settings say 3600000000000$/)]));
    const strict = await ensureJetStream(connection, { ...other, strict: true }, silent).catch((error: unknown) => error);
    expect(strict).toBeInstanceOf(AideError);
    expect((strict as AideError).code).toBe("CONFIG_INVALID");
    expect((strict as AideError).message).toMatch(/AGENT_EVENTS\.max_age/);
  });

  it("three replicas on a single server is refused with CONFIG_INVALID naming the setting", async () => {
    const other = await startTestBus();
    try {
      const single = await other.connectAs("orchestrator");
      const error = await ensureJetStream(single, jetStreamSettingsFromEnv({ AIDE_JETSTREAM_REPLICAS: "3" }), silent).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(AideError);
      expect((error as AideError).code).toBe("CONFIG_INVALID");
      expect((error as AideError).message).toMatch(/AIDE_JETSTREAM_REPLICAS/);
    } finally {
      await other.stop();
    }
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
