import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { ensureJetStream, type JetStreamHandles } from "../src/bus/jetstream-setup.js";
import { jetStreamSettingsFromEnv } from "../src/bus/jetstream-settings.js";
import { listSessions } from "../src/commands/list-sessions.js";
import type { Orchestrator } from "../src/orchestrator.js";
import { kvSessionStore, type SessionStore } from "../src/session/session-store.js";
import { newSessionRecord, type SessionRecord } from "../src/session/session-record.js";

const silent = pino({ level: "silent" });

function record(id: string, at: number, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, at)).toISOString();
  const base = newSessionRecord({ id, user: "u", workspace: "/w", mode: "act", task: `task ${id}`, max_iterations: 25 }, stamp);
  return { ...base, state: "done", updated_at: stamp, ...overrides };
}

/**
 * `GET /api/agent/sessions?limit=1` grew with the number of stored sessions: each call read every
 * stored record (each can hold a long transcript) one by one. Over the real JetStream session
 * store: a listing reads the records that changed since the last one, not all of them.
 */
describe("the session list reads what changed, not every stored session", () => {
  let bus: TestBus;
  let handles: JetStreamHandles;
  beforeAll(async () => {
    bus = await startTestBus();
    const connection = await bus.connectAs("orchestrator");
    handles = await ensureJetStream(connection, jetStreamSettingsFromEnv({ AIDE_EVENTS_MAX_AGE_MS: "86400000", AIDE_SESSIONS_MAX_BYTES: "50000000" }), silent);
  });
  afterAll(async () => bus?.stop());

  it("60 stored sessions: the first listing reads 60 records, the next ones only the changed", async () => {
    const store = kvSessionStore(handles.sessions);
    let reads = 0;
    const counting: SessionStore = {
      ...store,
      get: (id) => {
        reads += 1;
        return store.get(id);
      },
      list: async () => {
        const all = await store.list();
        reads += all.length;
        return all;
      },
      ...(store.revisions ? { revisions: () => store.revisions!() } : {}),
    };
    const orchestrator = { seams: { store: counting }, sessions: new Map() } as unknown as Orchestrator;
    for (let index = 0; index < 60; index += 1) await store.put(record(`s${String(index).padStart(2, "0")}`, index));
    const page = { limit: 1, offset: 0 };

    const first = await listSessions(orchestrator, page);
    expect(first.total).toBe(60);
    expect(first.sessions.map((snapshot) => snapshot.id)).toEqual(["s59"]);
    expect(reads).toBe(60);

    reads = 0;
    const second = await listSessions(orchestrator, page);
    expect(second.sessions.map((snapshot) => snapshot.id)).toEqual(["s59"]);
    expect(reads).toBe(0);

    // One session changes (a follow-up run); one is new: two records read, both seen.
    await store.put(record("s10", 120, { task: "a follow-up" }));
    await store.put(record("s60", 100));
    reads = 0;
    const third = await listSessions(orchestrator, { limit: 2, offset: 0 });
    expect(reads).toBe(2);
    expect(third.total).toBe(61);
    expect(third.sessions.map((snapshot) => [snapshot.id, snapshot.task])).toEqual([
      ["s10", "a follow-up"],
      ["s60", "task s60"],
    ]);
    // And a filter still sees every session.
    expect((await listSessions(orchestrator, { limit: 100, offset: 0, query: "follow-up" })).total).toBe(1);
  }, 60_000);
});
