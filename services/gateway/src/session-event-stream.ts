import type { NatsConnection, ConsumerMessages } from "nats";
import type { Logger } from "pino";
import { AideError, aideError, eventStreamName, sessionEventFilter, StatusReplySchema, subjects, wsCloseCodes, type WsFrame } from "@aide/contracts";
import type { GatewayBus } from "./gateway-bus.js";
import { createReplayFilter, type StoredEvent } from "./replay-filter.js";

/** The part of a WebSocket the stream needs (the `ws` package's socket fits). */
export interface FrameSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export interface SessionEventStreamOptions {
  connection: NatsConnection;
  bus: GatewayBus;
  session: string;
  since: number;
  socket: FrameSocket;
  logger: Logger;
  /** Past this many buffered bytes the stream stops reading until the client catches up. */
  highWaterBytes?: number;
  /** A client that stays above the high-water mark this long is closed with `resume`. */
  stalledMs?: number;
}

const open = 1;

/**
 * Streams one session to one client: an ordered JetStream consumer on `agent.evt.<session>.>`
 * replays the stored events and continues live in the same sequence, so there is no seam where an
 * event could fall between replay and live. A slow client is back-pressured (reading pauses); one
 * that stalls is closed with `resume` and reconnects with `since` = its last seq.
 * Returns a stop function.
 */
export async function streamSessionEvents(options: SessionEventStreamOptions): Promise<() => Promise<void>> {
  const { socket, logger } = options;
  const highWater = options.highWaterBytes ?? 1 << 20;
  const stalledMs = options.stalledMs ?? 30_000;
  let pending: string[] = [];
  let lastSeq = 0;
  try {
    const snapshot = await options.bus.request(subjects.cmd.status, { session: options.session }, StatusReplySchema, { timeoutMs: 5000 });
    pending = snapshot.approvals_pending.map((approval) => approval.id);
    lastSeq = snapshot.last_seq;
  } catch (error) {
    if (error instanceof AideError && error.code === "SESSION_NOT_FOUND") throw error;
    // The orchestrator is down: stored events are still worth showing; pending approvals are unknown.
    logger.warn({ err: error, session: options.session }, "status unavailable; replaying without pending approvals");
  }
  const filter = createReplayFilter({ since: options.since, pending, lastSeq });
  let stopped = false;
  let messages: ConsumerMessages | undefined;

  const send = async (frames: WsFrame[]): Promise<boolean> => {
    for (const frame of frames) {
      if (socket.readyState !== open) return false;
      socket.send(JSON.stringify(frame));
    }
    if (socket.bufferedAmount <= highWater) return true;
    const started = Date.now();
    while (socket.readyState === open && socket.bufferedAmount > highWater / 4) {
      if (Date.now() - started > stalledMs) {
        socket.close(wsCloseCodes.resume, `resume from ${filter.lastDelivered()}`);
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return socket.readyState === open;
  };

  let consumer;
  try {
    consumer = await options.connection.jetstream().consumers.get(eventStreamName, { filterSubjects: sessionEventFilter(options.session) });
    messages = await consumer.consume({ max_messages: 512 });
  } catch (error) {
    throw aideError("UNAVAILABLE", { service: "event stream", detail: (error as Error).message });
  }
  if (lastSeq === 0) await send(filter.caughtUp());
  const idle = setTimeout(() => void send(filter.caughtUp()), 2000);

  const pump = (async () => {
    for await (const message of messages) {
      if (stopped) break;
      let event: StoredEvent;
      try {
        event = message.json<StoredEvent>();
      } catch {
        logger.warn({ subject: message.subject }, "skipping an event that is not JSON");
        continue;
      }
      if (typeof event.seq !== "number") continue;
      const frames = filter.accept(event);
      if (!filter.isReady() && message.info.pending === 0) frames.push(...filter.caughtUp());
      if (!(await send(frames))) break;
    }
  })().catch((error: unknown) => logger.warn({ err: error, session: options.session }, "event stream ended"));

  return async () => {
    stopped = true;
    clearTimeout(idle);
    try {
      await messages?.close();
    } catch {
      // already closed
    }
    await pump;
  };
}
