import pino from "pino";
import { describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { newSessionRecord, type SessionRecord } from "./session-record.js";
import { SessionRuntime } from "./session-runtime.js";
import type { SessionStore } from "./session-store.js";

const nextImmediate = () => new Promise((resolve) => setImmediate(resolve));

function runtimeWith(puts: SessionRecord[]): SessionRuntime {
  const store: SessionStore = {
    get: async () => undefined,
    put: async (record) => {
      // What the store took, as it was then.
      puts.push(structuredClone(record));
    },
    list: async () => [],
    listLive: async () => [],
    claim: async () => undefined,
  };
  const logger = pino({ level: "silent" });
  const events = new EventSink({ publish: async () => undefined, now: () => new Date(0), logger });
  const record = newSessionRecord({ id: "s1", user: "u", workspace: "/w", mode: "act", task: "t", max_iterations: 5 }, new Date(0).toISOString());
  return new SessionRuntime(record, store, events, () => new Date(0), { pauseAfterMs: 1_000, logger });
}

describe("SessionRuntime.persistSoon: a background write off the turn's path", () => {
  it("starts the write once the loop waits on I/O, not inside the step that asked for it, and writes the record as it is then", async () => {
    const puts: SessionRecord[] = [];
    const runtime = runtimeWith(puts);
    runtime.persistSoon(() => undefined);
    runtime.record.iterations = 3;
    expect(puts).toEqual([]);
    await nextImmediate();
    await nextImmediate();
    expect(puts.map((record) => record.iterations)).toEqual([3]);
  });

  it("a persist before then covers it: one write, never a later second one", async () => {
    const puts: SessionRecord[] = [];
    const runtime = runtimeWith(puts);
    runtime.persistSoon(() => undefined);
    runtime.persistSoon(() => undefined);
    runtime.record.iterations = 2;
    await runtime.persist();
    expect(puts.map((record) => record.iterations)).toEqual([2]);
    await nextImmediate();
    await nextImmediate();
    expect(puts).toHaveLength(1);
  });

  it("reports a failed background write to its handler", async () => {
    const runtime = runtimeWith([]);
    const failing = runtime as unknown as { writer: { request(): Promise<void> } };
    failing.writer.request = () => Promise.reject(new Error("store away"));
    const errors: unknown[] = [];
    runtime.persistSoon((error) => errors.push(error));
    await nextImmediate();
    await nextImmediate();
    expect(errors.map((error) => (error as Error).message)).toEqual(["store away"]);
  });
});
