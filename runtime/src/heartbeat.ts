import { headers as natsHeaders, type Msg } from "nats";
import type { Logger } from "pino";

/** Request header: "send me a heartbeat every N ms while you handle this" (`busRequest`'s `heartbeat`). */
export const heartbeatRequestHeader = "Aide-Heartbeat-Ms";
/** Header of a heartbeat message (empty body) sent to the request's reply subject. */
export const heartbeatHeader = "Aide-Heartbeat";

/** Shortest interval a requester may ask for, so a request cannot turn a service into a flood. */
const minimumIntervalMs = 100;

/**
 * Starts the heartbeats a request asked for (none when it did not); returns the stop function.
 * The heartbeats start when the request is received, queued or not, and stop before the reply.
 * Must not throw: a heartbeat that cannot be sent is logged once and the others are still tried.
 */
export function startHeartbeats(message: Msg, logger: Logger): () => void {
  const asked = Number(message.headers?.get(heartbeatRequestHeader) ?? "");
  if (!message.reply || !Number.isFinite(asked) || asked <= 0) return () => undefined;
  const beat = natsHeaders();
  beat.set(heartbeatHeader, "1");
  let warned = false;
  const timer = setInterval(() => {
    try {
      message.respond(new Uint8Array(), { headers: beat });
    } catch (error) {
      if (!warned) logger.warn({ err: error }, "could not send a heartbeat");
      warned = true;
    }
  }, Math.max(minimumIntervalMs, asked));
  timer.unref();
  return () => clearInterval(timer);
}
