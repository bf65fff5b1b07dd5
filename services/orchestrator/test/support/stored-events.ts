import type { NatsConnection } from "nats";
import { eventStreamName, sessionBucketName, sessionEventFilter } from "@aide/contracts";

export interface StoredEvent {
  seq: number;
  type: string;
  payload: Record<string, any>;
}

/** What a client replaying the session from the stream gets: every stored event, in stream order. */
export async function storedEvents(connection: NatsConnection, session: string): Promise<StoredEvent[]> {
  const jsm = await connection.jetstreamManager();
  const info = await jsm.streams.info(eventStreamName, { subjects_filter: sessionEventFilter(session) });
  const total = Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
  if (total === 0) return [];
  const consumer = await connection.jetstream().consumers.get(eventStreamName, { filterSubjects: sessionEventFilter(session) });
  const events: StoredEvent[] = [];
  const messages = await consumer.consume({ max_messages: 1000 });
  for await (const message of messages) {
    events.push(message.json<StoredEvent>());
    if (events.length >= total) break;
  }
  await messages.close().catch(() => undefined);
  return events;
}

/** Polls the stream until `until` holds for the stored events (bounded). */
export async function waitForStored(connection: NatsConnection, session: string, until: (events: StoredEvent[]) => boolean, timeoutMs = 60_000): Promise<StoredEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await storedEvents(connection, session).catch(() => [] as StoredEvent[]);
    if (until(events)) return events;
    if (Date.now() > deadline) throw new Error(`stored events never matched; have ${events.map((e) => `${e.seq}:${e.type}`).join(" ")}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Stored seqs are exactly 1..n in order: no gap, no duplicate, no reordering. */
export function expectContiguous(events: StoredEvent[]): void {
  events.forEach((event, index) => {
    if (event.seq !== index + 1) throw new Error(`stored seq ${event.seq} at position ${index + 1}: ${events.map((e) => `${e.seq}:${e.type}`).join(" ")}`);
  });
}

export const terminalTypes = ["run.completed", "run.failed", "run.cancelled"];

/** Points a stream at other subjects (its messages stay): publishes to the old ones get no stream (503). */
export async function parkStream(connection: NatsConnection, stream: string, subjects: string[]): Promise<void> {
  const jsm = await connection.jetstreamManager();
  const info = await jsm.streams.info(stream);
  await jsm.streams.update(stream, { ...info.config, subjects });
}

/** The session record as the KV bucket holds it now. */
export async function storedRecord(connection: NatsConnection, session: string): Promise<any> {
  const kv = await connection.jetstream().views.kv(sessionBucketName);
  const entry = await kv.get(session);
  return entry && entry.value.length > 0 ? entry.json<any>() : undefined;
}

/** Polls until `check` returns true (bounded), for conditions outside the event stream. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
