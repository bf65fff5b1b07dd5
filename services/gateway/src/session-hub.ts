import type { JsMsg, NatsConnection } from "nats";
import type { Logger } from "pino";
import { screenSafeJson } from "@aide/contracts";
import { followStream, type FollowedStream } from "./follow-stream.js";
import type { StoredEvent } from "./replay-filter.js";

export interface HubEvent {
  seq: number;
  event: StoredEvent;
  /** The `event` frame, serialized and UTF-8 encoded once for every client. */
  frame: Buffer;
}

export interface HubListener {
  onEvent(event: HubEvent): void;
  onCaughtUp(): void;
}

export interface SessionHub {
  /** Recent events, contiguous and in seq order. */
  ring(): readonly HubEvent[];
  /** True once older events have been dropped from the ring. */
  trimmed(): boolean;
  lastSeq(): number;
  caughtUp(): boolean;
  /** Called synchronously with each new event, after it is in the ring. */
  subscribe(listener: HubListener): () => void;
  release(): void;
}

export interface SessionHubsOptions {
  connection: NatsConnection;
  logger: Logger;
  /** Events kept per session for replays (a reconnect after a short drop is served from memory). */
  ringEvents?: number;
  /** How long a hub with no client stays open (reconnects find it warm). */
  lingerMs?: number;
  /** With no stored event arriving this long after start, the hub counts as caught up. */
  emptyAfterMs?: number;
  /** The feed's pull lifetime: two missed heartbeats (half of it each) make it resume (`followStream`). */
  feedExpiresMs?: number;
}

/**
 * One ordered JetStream consumer per watched session, fanned out to every WebSocket on it: the
 * cost of a busy session grows with its events, not with events × clients. The hub replays the
 * session's history once into a ring of recent events, then follows it live; a lost consumer or a
 * stream leader change resumes it after the last delivered event (`followStream`), so clients
 * keep receiving without a gap.
 */
export function createSessionHubs(options: SessionHubsOptions) {
  const { connection, logger } = options;
  const ringEvents = options.ringEvents ?? 5000;
  const lingerMs = options.lingerMs ?? 10_000;
  const hubs = new Map<string, Promise<SessionHub & { close(): Promise<void> }>>();

  async function open(session: string): Promise<SessionHub & { close(): Promise<void> }> {
    const ring: HubEvent[] = [];
    const listeners = new Set<HubListener>();
    let trimmed = false;
    let lastSeq = 0;
    let caughtUp = false;
    let references = 0;
    let lingerTimer: NodeJS.Timeout | undefined;
    const markCaughtUp = () => {
      if (caughtUp) return;
      caughtUp = true;
      for (const listener of [...listeners]) listener.onCaughtUp();
    };
    const emptyTimer = setTimeout(() => {
      if (lastSeq === 0) markCaughtUp();
    }, options.emptyAfterMs ?? 1000);

    const onMessage = (message: JsMsg) => {
      let event: StoredEvent;
      try {
        event = message.json<StoredEvent>();
      } catch {
        logger.warn({ subject: message.subject }, "skipping an event that is not JSON");
        return;
      }
      // A resumed feed may deliver again what the ring has: the session's seq decides.
      if (typeof event.seq !== "number" || event.seq <= lastSeq) {
        if (message.info.pending === 0) markCaughtUp();
        return;
      }
      const hubEvent: HubEvent = { seq: event.seq, event, frame: Buffer.from(screenSafeJson({ type: "event", event })) };
      ring.push(hubEvent);
      if (ring.length > ringEvents) {
        ring.splice(0, ring.length - ringEvents);
        trimmed = true;
      }
      lastSeq = event.seq;
      for (const listener of [...listeners]) listener.onEvent(hubEvent);
      if (message.info.pending === 0) markCaughtUp();
    };
    let feed: FollowedStream;
    try {
      feed = await followStream({ connection, session, logger, onMessage, ...(options.feedExpiresMs ? { expiresMs: options.feedExpiresMs } : {}) });
    } catch (error) {
      clearTimeout(emptyTimer);
      throw error;
    }

    const hub = {
      ring: () => ring,
      trimmed: () => trimmed,
      lastSeq: () => lastSeq,
      caughtUp: () => caughtUp,
      subscribe(listener: HubListener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      acquire() {
        references += 1;
        if (lingerTimer) clearTimeout(lingerTimer);
        lingerTimer = undefined;
      },
      release() {
        references -= 1;
        if (references > 0) return;
        lingerTimer = setTimeout(() => {
          if (references > 0) return;
          hubs.delete(session);
          void hub.close();
        }, lingerMs);
        lingerTimer.unref();
      },
      async close() {
        clearTimeout(emptyTimer);
        if (lingerTimer) clearTimeout(lingerTimer);
        listeners.clear();
        await feed.stop();
      },
    };
    return hub;
  }

  return {
    /** The session's hub (opened on first use); call `release()` when the client goes. */
    async acquire(session: string): Promise<SessionHub> {
      let hub = hubs.get(session);
      if (!hub) {
        hub = open(session);
        hubs.set(session, hub);
        hub.catch(() => hubs.delete(session));
      }
      const ready = (await hub) as Awaited<ReturnType<typeof open>> & { acquire(): void };
      ready.acquire();
      return ready;
    },
    async close(): Promise<void> {
      const all = [...hubs.values()];
      hubs.clear();
      await Promise.allSettled(all.map(async (hub) => (await hub).close()));
    },
  };
}
export type SessionHubs = ReturnType<typeof createSessionHubs>;
