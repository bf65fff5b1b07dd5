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

const statusAttempts = 4;

/**
 * The session's pending approvals and last seq from the orchestrator, asked again (bounded) when
 * the answer does not come: under a flood of connections a lookup can time out, and a replay sent
 * without the pending approvals hides the decision the client is waiting on. `undefined` after the
 * last attempt: the caller then takes the pending approvals from the stream itself.
 */
async function pendingApprovals(options: SessionEventStreamOptions): Promise<{ pending: string[]; lastSeq: number } | undefined> {
  const { logger, session } = options;
  for (let attempt = 1; attempt <= statusAttempts; attempt += 1) {
    try {
      // No busy wait: a status that cannot be had at once falls back to the stream (below).
      const snapshot = await options.bus.request(subjects.cmd.status, { session }, StatusReplySchema, { timeoutMs: 5000, busyWaitMs: 0 });
      return { pending: snapshot.approvals_pending.map((approval) => approval.id), lastSeq: snapshot.last_seq };
    } catch (error) {
      if (error instanceof AideError && error.code === "SESSION_NOT_FOUND") throw error;
      if (attempt === statusAttempts) {
        logger.warn({ err: error, session, attempts: attempt }, "status unavailable; pending approvals taken from the event stream");
        return undefined;
      }
      logger.debug({ err: error, session, attempt }, "status lookup failed; asking again");
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
  return undefined;
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
  const known = await pendingApprovals(options);
  const pending = known?.pending ?? "from_stream";
  const lastSeq = known?.lastSeq ?? 0;
  // Unknown last seq: the replay is ready when the hub has caught up, not at the first event.
  const filter = createReplayFilter({ since: options.since, pending, lastSeq: known ? lastSeq : Number.POSITIVE_INFINITY });
  const feed = createFrameFeed(options.socket, options.feed);
  const hub = await options.hubs.acquire(session);
  let unsubscribe: (() => void) | undefined;
  let replay: ConsumerMessages | undefined;
  let stopped = false;
  // Without the status the session's end is unknown: `ready` waits for the hub, never guessed.
  if (known !== undefined && lastSeq === 0) feed.push(filter.caughtUp());

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
  const covered = !hub.trimmed() || (ringStart() <= options.since + 1 && known !== undefined && known.pending.length === 0);

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
