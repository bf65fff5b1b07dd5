import type { NatsConnection, ConsumerMessages } from "nats";
import type { Logger } from "pino";
import { AideError, aideError, eventStreamName, sessionEventFilter, StatusReplySchema, subjects } from "@aide/contracts";
import { createFrameFeed, type FrameFeedOptions, type FrameSocket } from "./frame-feed.js";
import type { GatewayBus } from "./gateway-bus.js";
import { createReplayFilter, type StoredEvent } from "./replay-filter.js";
import type { HubEvent, SessionHubs } from "./session-hub.js";

export type { FrameSocket } from "./frame-feed.js";

export interface SessionEventStreamOptions {
  connection: NatsConnection;
  hubs: SessionHubs;
  bus: GatewayBus;
  session: string;
  since: number;
  socket: FrameSocket;
  logger: Logger;
  feed?: FrameFeedOptions;
}

/**
 * Streams one session to one client. The session's hub holds recent events and follows the
 * stream live; a client whose `since` is older than the hub's memory first replays through its
 * own ordered consumer, then joins the hub at the point where the two overlap. Joining happens
 * synchronously (ring, then subscribe), so no event can fall between replay and live, and the
 * replay filter drops any event the client already has. Returns a stop function.
 */
export async function streamSessionEvents(options: SessionEventStreamOptions): Promise<() => Promise<void>> {
  const { logger, session } = options;
  let pending: string[] = [];
  let lastSeq = 0;
  try {
    const snapshot = await options.bus.request(subjects.cmd.status, { session }, StatusReplySchema, { timeoutMs: 5000 });
    pending = snapshot.approvals_pending.map((approval) => approval.id);
    lastSeq = snapshot.last_seq;
  } catch (error) {
    if (error instanceof AideError && error.code === "SESSION_NOT_FOUND") throw error;
    // The orchestrator is down: stored events are still worth showing; pending approvals are unknown.
    logger.warn({ err: error, session }, "status unavailable; replaying without pending approvals");
  }
  const filter = createReplayFilter({ since: options.since, pending, lastSeq });
  const feed = createFrameFeed(options.socket, options.feed);
  const hub = await options.hubs.acquire(session);
  let unsubscribe: (() => void) | undefined;
  let replay: ConsumerMessages | undefined;
  let stopped = false;
  if (lastSeq === 0) feed.push(filter.caughtUp());

  const deliver = (hubEvent: HubEvent) => feed.push(filter.accept(hubEvent.event), hubEvent);
  // The hub's "caught up" is a guess when the stream is slow to answer; the session's last seq
  // (from the status snapshot) is the fact, so ready waits for both.
  const caughtUp = () => {
    if (hub.caughtUp() && hub.lastSeq() >= lastSeq) feed.push(filter.caughtUp());
  };
  const join = () => {
    for (const hubEvent of hub.ring()) deliver(hubEvent);
    unsubscribe = hub.subscribe({ onEvent: deliver, onCaughtUp: caughtUp });
    caughtUp();
  };
  const ringStart = () => hub.ring()[0]?.seq ?? hub.lastSeq() + 1;
  const covered = !hub.trimmed() || (ringStart() <= options.since + 1 && pending.length === 0);

  if (covered) join();
  else {
    try {
      const consumer = await options.connection.jetstream().consumers.get(eventStreamName, { filterSubjects: sessionEventFilter(session) });
      replay = await consumer.consume({ max_messages: 512 });
    } catch (error) {
      hub.release();
      throw aideError("UNAVAILABLE", { service: "event stream", detail: (error as Error).message });
    }
    const messages = replay;
    void (async () => {
      for await (const message of messages) {
        if (stopped) return;
        let event: StoredEvent;
        try {
          event = message.json<StoredEvent>();
        } catch {
          continue;
        }
        if (typeof event.seq !== "number") continue;
        feed.push(filter.accept(event));
        if (event.seq + 1 >= ringStart()) break;
      }
      await messages.close().catch(() => undefined);
      if (!stopped) join();
    })().catch((error: unknown) => logger.warn({ err: error, session }, "replay ended"));
  }

  return async () => {
    stopped = true;
    unsubscribe?.();
    feed.stop();
    hub.release();
    await replay?.close().catch(() => undefined);
  };
}
