import type { Msg, NatsConnection, ServiceMsg, Service } from "nats";
import type { Logger } from "pino";
import type { z } from "zod";
import { aideError, type AideError, type ErrorBody } from "@aide/contracts";
import { maxMessageBytesFromEnv, receiveLarge, respondLarge } from "../messages/chunked-transfer.js";
import { decodeJson, encodeJson, errorReply, okReply } from "../messages/codec.js";
import { createFairQueue } from "../backpressure/fair-queue.js";
import { startHeartbeats } from "../backpressure/heartbeat.js";
import { shutdownGraceMsFromEnv, shuttingDownError } from "./shutdown-settings.js";

export interface HandlerContext {
  subject: string;
  /** The raw message, for handlers that stream (e.g. the model's deltas) or read headers. */
  message: ServiceMsg;
  logger: Logger;
  /** Aborted when the service is draining. */
  signal: AbortSignal;
}

export interface Endpoint<S extends z.ZodTypeAny = z.ZodTypeAny> {
  /** Short endpoint name for $SRV.INFO (e.g. "exec"). */
  name: string;
  subject: string;
  schema: S;
  /** Returns the result; throw an AideError for an error reply. Never called with invalid input. */
  handle(request: z.infer<S>, context: HandlerContext): Promise<unknown>;
}

export function defineEndpoint<S extends z.ZodTypeAny>(endpoint: Endpoint<S>): Endpoint<S> {
  return endpoint;
}

export interface StartServiceOptions {
  connection: NatsConnection;
  name: string;
  version: string;
  description: string;
  endpoints: Endpoint[];
  logger: Logger;
  /** Queue group so several instances share the work; default "q" (NATS micro's default). */
  queue?: string;
  /**
   * The largest request accepted, whole (one over the server's max payload arrives in chunks);
   * default `AIDE_BUS_MAX_MESSAGE_BYTES` or 64 MiB. Replies have the same bound.
   */
  maxRequestBytes?: number;
  /** Concurrent handlers at most (default 64); past it requests wait their turn, fairly per session. */
  maxConcurrent?: number;
  /** Requests waiting for a handler at most, over all sessions (default 4 × maxConcurrent); past it BUSY. */
  maxQueued?: number;
  /** Requests of one session waiting at most (default maxConcurrent, at least 4); past it BUSY. */
  maxQueuedPerSession?: number;
  /** How long a request may wait for a handler before it is answered BUSY (default 10 s). */
  maxQueueWaitMs?: number;
  /** Shown in `$SRV.INFO` (the workspace roots a tools or checkpoints instance serves). */
  metadata?: Record<string, string>;
}

export interface RunningService {
  service: Service;
  /**
   * Stops taking requests (the endpoints leave their queue group at once, so the bus sends new
   * ones to another instance or answers no-responders), lets in-flight handlers finish for
   * `timeoutMs` (default `AIDE_SHUTDOWN_GRACE_MS`, 5 s), then aborts them and answers every
   * request still unanswered UNAVAILABLE (`reason: "shutting_down"`, a retry hint). Resolves when
   * every request it took has had its answer.
   */
  stop(timeoutMs?: number): Promise<void>;
  inFlight(): number;
}

export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

/** A service's admission with the runtime's defaults filled in: 64 at once, 4 × that waiting, as many per session (at least 4). */
export function admissionLimits(options: { maxConcurrent?: number; maxQueued?: number; maxQueuedPerSession?: number }): { maxConcurrent: number; maxQueued: number; maxQueuedPerSession: number } {
  const maxConcurrent = options.maxConcurrent ?? 64;
  return { maxConcurrent, maxQueued: options.maxQueued ?? maxConcurrent * 4, maxQueuedPerSession: options.maxQueuedPerSession ?? Math.max(4, maxConcurrent) };
}

/**
 * Registers a NATS micro service whose every endpoint decodes, size-checks and validates a
 * request, calls the handler, and answers `{ok,result}` or `{ok:false,error}`. A handler that
 * throws is logged and answered with an error reply; nothing a client sends can kill the process.
 */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { connection, logger } = options;
  const maxBytes = options.maxRequestBytes ?? maxMessageBytesFromEnv();
  const limits = admissionLimits(options);
  const admission = createFairQueue({
    concurrency: limits.maxConcurrent,
    maxQueued: limits.maxQueued,
    maxQueuedPerKey: limits.maxQueuedPerSession,
    maxWaitMs: options.maxQueueWaitMs ?? 10_000,
    what: "requests",
  });
  const controller = new AbortController();
  const pending = new Set<Promise<void>>();
  const unanswered = new Set<Answerable>();
  let stopping: Promise<void> | undefined;

  const service = await connection.services.add({
    name: options.name,
    version: options.version,
    description: options.description,
    queue: options.queue,
    ...(options.metadata ? { metadata: options.metadata } : {}),
  });

  for (const endpoint of options.endpoints) {
    const endpointLogger = logger.child({ endpoint: endpoint.name });
    service.addEndpoint(endpoint.name, {
      subject: endpoint.subject,
      handler: (error, message) => {
        if (error) {
          endpointLogger.error({ err: error }, "endpoint subscription error");
          return;
        }
        // Delivered after stop() began (the subscription drains what the server already sent).
        if (stopping !== undefined) {
          respond(message, errorReply(shuttingDownError(options.name)), endpointLogger);
          return;
        }
        const context: HandleContext = { name: options.name, connection, logger: endpointLogger, maxBytes, signal: controller.signal, unanswered };
        const work = admitAndHandle(endpoint, message, context, (key) => admission.acquire(key, controller.signal));
        pending.add(work);
        void work.finally(() => pending.delete(work));
      },
    });
  }
  // The endpoints' SUBs are only queued on this connection: a request another connection sends
  // before nats-server has read them finds no responder. The server reads one connection's
  // protocol in order, so once the flush's PONG is back every endpoint is registered.
  await connection.flush();
  logger.info({ service: options.name, endpoints: options.endpoints.map((e) => e.subject) }, "service registered");

  const stop = async (timeoutMs: number) => {
    const left = service.stop().catch(() => undefined);
    const settled = Promise.allSettled([...pending]);
    const inTime = await Promise.race([settled.then(() => true), delay(timeoutMs).then(() => false)]);
    if (!inTime) {
      logger.warn({ in_flight: pending.size, grace_ms: timeoutMs }, "in-flight requests outlived the shutdown grace; aborting them");
      controller.abort();
      // A handler that honours its signal answers in a moment; the rest are answered here.
      await Promise.race([settled, delay(Math.min(1_000, timeoutMs))]);
      await Promise.all([...unanswered].map((request) => request.answer(errorReply(shuttingDownError(options.name)))));
    }
    await left;
  };

  return {
    service,
    inFlight: () => pending.size,
    stop(timeoutMs = shutdownGraceMsFromEnv()) {
      stopping ??= stop(timeoutMs);
      return stopping;
    },
  };
}

/** The session a request belongs to, for fair admission: its `session` field, or "" for requests of none. */
function sessionKeyOf(raw: unknown): string {
  const session = typeof raw === "object" && raw !== null ? (raw as { session?: unknown }).session : undefined;
  return typeof session === "string" ? session : "";
}

/** A request taken and not yet answered; `answer` sends the one reply it will get. */
interface Answerable {
  answer(body: ReplyBody): Promise<void>;
}

type ReplyBody = { ok: true; result: unknown } | { ok: false; error: ErrorBody };

interface HandleContext {
  /** The service's name, for the shutting-down answer. */
  name: string;
  connection: NatsConnection;
  logger: Logger;
  maxBytes: number;
  signal: AbortSignal;
  unanswered: Set<Answerable>;
}

/**
 * Heartbeats (when asked for) from receipt to reply; the whole body (chunks reassembled); then a
 * handler slot, taken in turn with the other sessions' requests. A request refused at admission
 * (BUSY) has run none of its handler.
 */
async function admitAndHandle(endpoint: Endpoint, message: ServiceMsg, context: HandleContext, admit: (key: string) => Promise<() => void>): Promise<void> {
  const { connection, logger, maxBytes } = context;
  const stopHeartbeats = startHeartbeats(connection, message, logger);
  let release: (() => void) | undefined;
  try {
    const received = await receiveLarge(connection, message, maxBytes);
    if (!received.ok) {
      stopHeartbeats();
      logger.info({ code: received.error.code, msg: received.error.message }, "request refused");
      if (received.replyTo) respond(received.replyTo, errorReply(received.error), logger);
      return;
    }
    let raw: unknown;
    try {
      raw = decodeJson(received.data);
    } catch (error) {
      stopHeartbeats();
      respond(received.replyTo, errorReply(error), logger);
      return;
    }
    try {
      release = await admit(sessionKeyOf(raw));
    } catch (error) {
      stopHeartbeats();
      // Still waiting for a slot when the shutdown grace ran out: the retryable shutting-down answer.
      const refusal = context.signal.aborted ? shuttingDownError(context.name) : error;
      logger.info({ code: (refusal as AideError).code, msg: (refusal as Error).message }, "request refused at admission");
      respond(received.replyTo, errorReply(refusal), logger);
      return;
    }
    await handleOne(endpoint, message, received.replyTo, raw, context, stopHeartbeats);
  } finally {
    stopHeartbeats();
    release?.();
  }
}

async function handleOne(endpoint: Endpoint, message: ServiceMsg, replyTo: Msg, raw: unknown, context: HandleContext, beforeReply: () => void): Promise<void> {
  const { connection, logger, maxBytes, signal, unanswered } = context;
  const started = performance.now();
  let answered = false;
  const slot: Answerable = {
    async answer(body) {
      if (answered) return;
      answered = true;
      unanswered.delete(slot);
      await sendReply(connection, replyTo, body, maxBytes, logger);
    },
  };
  unanswered.add(slot);
  try {
    const parsed = endpoint.schema.safeParse(raw);
    if (!parsed.success) {
      throw aideError("VALIDATION", { detail: formatZodError(parsed.error) });
    }
    const result = await endpoint.handle(parsed.data, { subject: message.subject, message, logger, signal });
    if (answered) logger.warn("a handler finished after the shutdown answered its request; its result is dropped");
    beforeReply();
    await slot.answer(okReply(result));
    logger.debug({ ms: Math.round(performance.now() - started) }, "handled");
  } catch (error) {
    const reply = errorReply(error);
    if (reply.error.code === "INTERNAL") logger.error({ err: error }, "handler failed");
    else logger.info({ code: reply.error.code, msg: reply.error.message }, "request refused");
    beforeReply();
    await slot.answer(reply);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A reply of any size: over one message it goes in chunks; past `maxBytes` it is PAYLOAD_TOO_LARGE. */
async function sendReply(connection: NatsConnection, replyTo: Msg, body: ReplyBody, maxBytes: number, logger: Logger): Promise<void> {
  if (!replyTo.reply) return;
  let data = encodeJson(body);
  if (data.length > maxBytes) {
    data = encodeJson(errorReply(aideError("PAYLOAD_TOO_LARGE", { size: data.length, limit: maxBytes })));
  }
  try {
    await respondLarge(connection, replyTo, data);
  } catch (error) {
    logger.warn({ err: error, bytes: data.length }, "could not send a reply");
  }
}

/** A small reply (a refusal), sent at once. */
function respond(message: Msg, body: ReplyBody, logger: Logger): void {
  if (!message.reply) return;
  try {
    message.respond(encodeJson(body));
  } catch (error) {
    logger.warn({ err: error }, "could not send a reply");
  }
}
