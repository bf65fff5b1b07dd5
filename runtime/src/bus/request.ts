import { createInbox, headers as natsHeaders, nuid, type Msg, type NatsConnection } from "nats";
import type { z } from "zod";
import { AideError, aideError, type ErrorBody } from "@aide/contracts";
import { completeReply, fitsOneMessage, requestLarge } from "../messages/chunked-transfer.js";
import { decodeJson, encodeJson } from "../messages/codec.js";
import { formatZodError } from "../service/service.js";
import { heartbeatHeader, heartbeatRequestHeader, heartbeatSubject, heartbeatSubjectHeader } from "../backpressure/heartbeat.js";
import { withRetry, type RetryPolicy } from "../backpressure/retry-policy.js";

export interface HeartbeatPolicy {
  /** How often the responder is asked to send a heartbeat. */
  intervalMs: number;
  /** Silence after which the call ends INTERRUPTED. */
  timeoutMs: number;
  /** Said in INTERRUPTED's `details.may_have_run`: whether the request may have taken effect. */
  mayHaveRun: boolean;
}

export interface BusRequestOptions {
  /** One attempt's timeout (each retry gets this much again; retries start within the retry deadline). */
  timeoutMs?: number;
  /** The service name for UNAVAILABLE errors. */
  service?: string;
  /** Retry BUSY (and, when allowed, no-responder) with backoff and jitter; without it, one attempt. */
  retry?: RetryPolicy;
  /** Ask the responder for heartbeats; a responder that dies mid-request is noticed within `timeoutMs`. */
  heartbeat?: HeartbeatPolicy;
}

type ResultOf<S extends z.ZodTypeAny> = Extract<z.infer<S>, { ok: true }> extends { result: infer R } ? R : never;

/**
 * Sends a request and returns the reply's result, or throws an AideError carrying the reply's
 * code (UNAVAILABLE when nobody answers or nobody answers in time, INTERRUPTED when the responder
 * stopped its heartbeats). With `retry`, BUSY never reaches the caller before the deadline.
 */
export async function busRequest<S extends z.ZodTypeAny>(connection: NatsConnection, subject: string, payload: unknown, replySchema: S, options: BusRequestOptions = {}): Promise<ResultOf<S>> {
  const service = options.service ?? subject.split(".")[1] ?? subject;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const data = encodeJson(payload);
  // Each attempt gets the whole timeout: the retry deadline bounds when a retry may start, so a
  // late retry is not cut short into a spurious timeout.
  const once = () => requestOnce(connection, subject, data, replySchema, service, timeoutMs, options.heartbeat);
  if (options.retry === undefined) return once() as Promise<ResultOf<S>>;
  return withRetry(service, options.retry, once) as Promise<ResultOf<S>>;
}

async function requestOnce(
  connection: NatsConnection,
  subject: string,
  data: Uint8Array,
  replySchema: z.ZodTypeAny,
  service: string,
  timeoutMs: number,
  heartbeat: HeartbeatPolicy | undefined,
): Promise<unknown> {
  let replyData: Uint8Array;
  try {
    // Bodies over the server's max payload travel in chunks (chunked-transfer.ts). Heartbeats ride
    // on a request that fits one message; a chunked request waits on its timeout alone.
    if (heartbeat !== undefined && fitsOneMessage(connection, data)) {
      const message = await requestWithHeartbeats(connection, subject, data, timeoutMs, heartbeat, service);
      replyData = await completeReply(connection, message, { timeoutMs });
    } else {
      replyData = await requestLarge(connection, subject, data, { timeoutMs });
    }
  } catch (error) {
    if (error instanceof AideError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "503") throw aideError("UNAVAILABLE", { service, detail: "no responder" }, { reason: "no_responder" });
    if (code === "TIMEOUT") throw aideError("UNAVAILABLE", { service, detail: `no reply within ${timeoutMs} ms` }, { reason: "timeout" });
    throw aideError("UNAVAILABLE", { service, detail: (error as Error).message });
  }
  const parsed = replySchema.safeParse(decodeJson(replyData));
  if (!parsed.success) throw aideError("INTERNAL", { detail: `bad reply from ${subject}: ${formatZodError(parsed.error)}` });
  const reply = parsed.data as { ok: true; result: unknown } | { ok: false; error: ErrorBody };
  if (!reply.ok) throw new AideError(reply.error.code, reply.error.message, reply.error.details);
  return reply.result;
}

/**
 * Per connection: one wildcard subscription (`<inbox>.*`) that every heartbeat request's reply
 * inbox lives under, and one (`agent.hb.*.<id>.*`) for the heartbeats of all of them, instead of a
 * SUB and an UNSUB per request: messages are handed to the request whose token they carry. Made
 * on first use; dropped (and its waiters told) when either subscription ends, so the next request
 * makes new ones.
 */
interface HeartbeatInboxes {
  prefix: string;
  /** This connection's part of its heartbeat subjects (random: other requesters' heartbeats never reach it). */
  id: string;
  waiters: Map<string, (error: Error | null, message: Msg | undefined) => void>;
}

const inboxesByConnection = new WeakMap<NatsConnection, HeartbeatInboxes>();

function heartbeatInboxes(connection: NatsConnection): HeartbeatInboxes {
  const existing = inboxesByConnection.get(connection);
  if (existing !== undefined) return existing;
  const inboxPrefix = (connection as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
  const inboxes: HeartbeatInboxes = { prefix: createInbox(inboxPrefix), id: nuid.next(), waiters: new Map() };
  const drop = (error: Error) => {
    if (inboxesByConnection.get(connection) !== inboxes) return;
    inboxesByConnection.delete(connection);
    replies.unsubscribe();
    beats.unsubscribe();
    for (const waiter of [...inboxes.waiters.values()]) waiter(error, undefined);
    inboxes.waiters.clear();
  };
  const replies = connection.subscribe(`${inboxes.prefix}.*`, {
    callback: (error, message) => {
      if (error) return drop(error);
      inboxes.waiters.get(message.subject.slice(inboxes.prefix.length + 1))?.(null, message);
    },
  });
  const beats = connection.subscribe(heartbeatSubject("*", inboxes.id, "*"), {
    callback: (error, message) => {
      if (error) return drop(error);
      // Only a heartbeat counts here: a reply is only ever taken from the reply inbox.
      if (message.headers?.has(heartbeatHeader) !== true) return;
      inboxes.waiters.get(message.subject.slice(message.subject.lastIndexOf(".") + 1))?.(null, message);
    },
  });
  const closed = (what: string) => () => drop(Object.assign(new Error(`the ${what} subscription closed`), { code: "CONNECTION_CLOSED" }));
  void replies.closed.then(closed("heartbeat reply inbox"));
  void beats.closed.then(closed("heartbeat"));
  inboxesByConnection.set(connection, inboxes);
  return inboxes;
}

let heartbeatToken = 0;

/** The request's headers: the heartbeat interval and the subject the heartbeats go to. */
function heartbeatRequestHeaders(intervalMs: number, subject: string): ReturnType<typeof natsHeaders> {
  const headers = natsHeaders();
  headers.set(heartbeatRequestHeader, String(intervalMs));
  headers.set(heartbeatSubjectHeader, subject);
  return headers;
}

/**
 * A request on a reply inbox of its own (under the connection's shared reply subscription), with
 * a heartbeat subject of its own under the service's name (`agent.hb.<service>.<id>.<token>`), where
 * the responder sends heartbeats (empty messages with the heartbeat header) until its one reply.
 * Silence for `policy.timeoutMs` ends it INTERRUPTED. The silence check yields to I/O once before
 * it decides, so heartbeats already buffered while this process was busy count.
 */
function requestWithHeartbeats(connection: NatsConnection, subject: string, data: Uint8Array, timeoutMs: number, policy: HeartbeatPolicy, service: string): Promise<Msg> {
  const inboxes = heartbeatInboxes(connection);
  // The responding service is the subject's second token (agent.tools.exec → tools): the bus lets
  // each service publish heartbeats under its own name only.
  const responder = subject.split(".")[1] ?? service;
  heartbeatToken = (heartbeatToken + 1) % Number.MAX_SAFE_INTEGER;
  const token = heartbeatToken.toString(36);
  const inbox = `${inboxes.prefix}.${token}`;
  return new Promise<Msg>((resolve, reject) => {
    let lastHeard = Date.now();
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(overall);
      clearInterval(watchdog);
      inboxes.waiters.delete(token);
      outcome();
    };
    inboxes.waiters.set(token, (error, message) => {
      if (error || message === undefined) return finish(() => reject(error ?? new Error("no message")));
      if (message.data.length === 0 && message.headers?.code === 503) return finish(() => reject(Object.assign(new Error("no responders"), { code: "503" })));
      lastHeard = Date.now();
      if (message.headers?.has(heartbeatHeader) === true) return;
      finish(() => resolve(message));
    });
    const overall = setTimeout(() => finish(() => reject(Object.assign(new Error("timeout"), { code: "TIMEOUT" }))), timeoutMs);
    const watchdog = setInterval(
      () => {
        if (Date.now() - lastHeard <= policy.timeoutMs) return;
        setImmediate(() => {
          const silent = Date.now() - lastHeard;
          if (silent <= policy.timeoutMs) return;
          finish(() =>
            reject(
              aideError("INTERRUPTED", { service, detail: `no heartbeat for ${Math.round(silent)} ms` }, { reason: "heartbeat_lost", silent_ms: Math.round(silent), may_have_run: policy.mayHaveRun }),
            ),
          );
        });
      },
      Math.max(50, Math.min(policy.intervalMs, Math.floor(policy.timeoutMs / 4))),
    );
    try {
      connection.publish(subject, data, { reply: inbox, headers: heartbeatRequestHeaders(policy.intervalMs, heartbeatSubject(responder, inboxes.id, token)) });
    } catch (error) {
      finish(() => reject(error));
    }
  });
}
