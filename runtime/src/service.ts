import type { NatsConnection, ServiceMsg, Service } from "nats";
import type { Logger } from "pino";
import type { z } from "zod";
import { aideError, type AideError, type ErrorBody } from "@aide/contracts";
import { decodeJson, encodeJson, errorReply, okReply } from "./codec.js";
import { createFairQueue } from "./fair-queue.js";
import { startHeartbeats } from "./heartbeat.js";

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
  /** The largest request accepted; default the server's max payload. */
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
  /** Resolves when in-flight handlers have finished (bounded by timeoutMs). */
  stop(timeoutMs?: number): Promise<void>;
  inFlight(): number;
}

export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

/**
 * Registers a NATS micro service whose every endpoint decodes, size-checks and validates a
 * request, calls the handler, and answers `{ok,result}` or `{ok:false,error}`. A handler that
 * throws is logged and answered with an error reply; nothing a client sends can kill the process.
 */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { connection, logger } = options;
  const maxBytes = options.maxRequestBytes ?? connection.info?.max_payload ?? 1024 * 1024;
  const maxConcurrent = options.maxConcurrent ?? 64;
  const admission = createFairQueue({
    concurrency: maxConcurrent,
    maxQueued: options.maxQueued ?? maxConcurrent * 4,
    maxQueuedPerKey: options.maxQueuedPerSession ?? Math.max(4, maxConcurrent),
    maxWaitMs: options.maxQueueWaitMs ?? 10_000,
    what: "requests",
  });
  const controller = new AbortController();
  const pending = new Set<Promise<void>>();

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
        const work = admitAndHandle(endpoint, message, endpointLogger, maxBytes, controller.signal, (key) => admission.acquire(key, controller.signal));
        pending.add(work);
        void work.finally(() => pending.delete(work));
      },
    });
  }
  logger.info({ service: options.name, endpoints: options.endpoints.map((e) => e.subject) }, "service registered");

  return {
    service,
    inFlight: () => pending.size,
    async stop(timeoutMs = 10_000) {
      controller.abort();
      await Promise.race([Promise.allSettled([...pending]), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
      await service.stop().catch(() => undefined);
    },
  };
}

/** The session a request belongs to, for fair admission: its `session` field, or "" for requests of none. */
function sessionKeyOf(raw: unknown): string {
  const session = typeof raw === "object" && raw !== null ? (raw as { session?: unknown }).session : undefined;
  return typeof session === "string" ? session : "";
}

/**
 * Heartbeats (when asked for) from receipt to reply; then a handler slot, taken in turn with the
 * other sessions' requests. A request refused at admission (BUSY) has run none of its handler.
 */
async function admitAndHandle(
  endpoint: Endpoint,
  message: ServiceMsg,
  logger: Logger,
  maxBytes: number,
  signal: AbortSignal,
  admit: (key: string) => Promise<() => void>,
): Promise<void> {
  const stopHeartbeats = startHeartbeats(message, logger);
  let release: (() => void) | undefined;
  try {
    let raw: unknown;
    try {
      if (message.data.length > maxBytes) throw aideError("PAYLOAD_TOO_LARGE", { size: message.data.length, limit: maxBytes });
      raw = decodeJson(message.data);
    } catch (error) {
      stopHeartbeats();
      respond(message, errorReply(error), logger);
      return;
    }
    try {
      release = await admit(sessionKeyOf(raw));
    } catch (error) {
      stopHeartbeats();
      logger.info({ code: (error as AideError).code, msg: (error as Error).message }, "request refused at admission");
      respond(message, errorReply(error), logger);
      return;
    }
    await handleOne(endpoint, message, raw, logger, signal, stopHeartbeats);
  } finally {
    stopHeartbeats();
    release?.();
  }
}

async function handleOne(endpoint: Endpoint, message: ServiceMsg, raw: unknown, logger: Logger, signal: AbortSignal, beforeReply: () => void): Promise<void> {
  const started = performance.now();
  try {
    const parsed = endpoint.schema.safeParse(raw);
    if (!parsed.success) {
      throw aideError("VALIDATION", { detail: formatZodError(parsed.error) });
    }
    const result = await endpoint.handle(parsed.data, { subject: message.subject, message, logger, signal });
    beforeReply();
    respond(message, okReply(result), logger);
    logger.debug({ ms: Math.round(performance.now() - started) }, "handled");
  } catch (error) {
    const reply = errorReply(error);
    if (reply.error.code === "INTERNAL") logger.error({ err: error }, "handler failed");
    else logger.info({ code: reply.error.code, msg: reply.error.message }, "request refused");
    beforeReply();
    respond(message, reply, logger);
  }
}

function respond(message: ServiceMsg, body: { ok: true; result: unknown } | { ok: false; error: ErrorBody }, logger: Logger): void {
  if (!message.reply) return;
  let data = encodeJson(body);
  const limit = 1024 * 1024;
  if (data.length > limit) {
    data = encodeJson(errorReply(aideError("PAYLOAD_TOO_LARGE", { size: data.length, limit })));
  }
  try {
    message.respond(data);
  } catch (error) {
    logger.warn({ err: error }, "could not send a reply");
  }
}
