import { headers as natsHeaders, type Msg, type NatsConnection } from "nats";
import type { Logger } from "pino";

/** Request header: "send me a heartbeat every N ms while you handle this" (`busRequest`'s `heartbeat`). */
export const heartbeatRequestHeader = "Aide-Heartbeat-Ms";
/** Request header: the subject the heartbeats go to (`agent.hb.<service>.<requester's id>.<token>`). */
export const heartbeatSubjectHeader = "Aide-Heartbeat-Subject";
/** Header of a heartbeat message (empty body). */
export const heartbeatHeader = "Aide-Heartbeat";

/**
 * Heartbeats travel on subjects of their own, not on the request's reply subject. A responder may
 * then answer each reply subject once (`allow_responses: true`): nats-server forgets a reply
 * subject as soon as its one response is used, where with room for heartbeats (`max: 5000,
 * expires: 1h`) it kept every reply subject for an hour, and once a connection had 4,096 of them it
 * scanned them all on every request (bench:bus `sustained_*`). Each service may publish only
 * under its own name (`agent.hb.tools.>` for tools), so a heartbeat cannot speak for another service.
 */
export function heartbeatSubject(service: string, requester: string, token: string): string {
  return `agent.hb.${service}.${requester}.${token}`;
}
/** What a request may name as its heartbeat subject (anything else gets no heartbeats). */
const heartbeatSubjectPattern = /^agent\.hb\.[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9]{1,64}\.[A-Za-z0-9]{1,32}$/;

/** Shortest interval a requester may ask for, so a request cannot turn a service into a flood. */
const minimumIntervalMs = 100;

/**
 * Starts the heartbeats a request asked for (none when it did not); returns the stop function.
 * The heartbeats start when the request is received, queued or not, and stop before the reply.
 * Must not throw: a heartbeat that cannot be sent is logged once and the others are still tried.
 */
export function startHeartbeats(connection: NatsConnection, message: Msg, logger: Logger): () => void {
  const asked = Number(message.headers?.get(heartbeatRequestHeader) ?? "");
  const subject = message.headers?.get(heartbeatSubjectHeader) ?? "";
  if (!message.reply || !Number.isFinite(asked) || asked <= 0) return () => undefined;
  if (!heartbeatSubjectPattern.test(subject)) {
    logger.warn({ subject_length: subject.length }, "a request asked for heartbeats without a valid heartbeat subject; none are sent");
    return () => undefined;
  }
  const beat = natsHeaders();
  beat.set(heartbeatHeader, "1");
  let warned = false;
  const timer = setInterval(
    () => {
      try {
        connection.publish(subject, new Uint8Array(), { headers: beat });
      } catch (error) {
        if (!warned) logger.warn({ err: error }, "could not send a heartbeat");
        warned = true;
      }
    },
    Math.max(minimumIntervalMs, asked),
  );
  timer.unref();
  return () => clearInterval(timer);
}
