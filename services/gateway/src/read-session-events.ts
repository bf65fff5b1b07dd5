import type { NatsConnection } from "nats";
import { aideError, eventStreamName, sessionEventFilter } from "@aide/contracts";

/**
 * Every stored event of a session up to `lastSeq` (the seq its status named), read once through
 * an ordered consumer of the event stream. Stops at `lastSeq` or when the stream has nothing more
 * for the session; a stream that does not deliver within `timeoutMs` is UNAVAILABLE.
 */
export async function readSessionEvents(connection: NatsConnection, session: string, lastSeq: number, timeoutMs = 20_000): Promise<unknown[]> {
  if (lastSeq === 0) return [];
  let messages;
  try {
    const consumer = await connection.jetstream().consumers.get(eventStreamName, { filterSubjects: sessionEventFilter(session) });
    // Nothing stored for the session (yet, or any more): no wait for messages that will not come.
    if ((await consumer.info()).num_pending === 0) return [];
    messages = await consumer.consume({ max_messages: 512 });
  } catch (error) {
    throw aideError("UNAVAILABLE", { service: "event stream", detail: (error as Error).message });
  }
  const events: unknown[] = [];
  const timer = setTimeout(() => void messages.close().catch(() => undefined), timeoutMs);
  let complete = false;
  try {
    for await (const message of messages) {
      let event: { seq?: unknown };
      try {
        event = message.json<{ seq?: unknown }>();
      } catch {
        event = {};
      }
      events.push(event);
      if ((typeof event.seq === "number" && event.seq >= lastSeq) || message.info.pending === 0) {
        complete = true;
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    await messages.close().catch(() => undefined);
  }
  if (!complete) throw aideError("UNAVAILABLE", { service: "event stream", detail: `the session's events did not arrive within ${timeoutMs} ms` });
  return events;
}
