import type { NatsConnection, ServiceMsg, Service } from "nats";
import type { Logger } from "pino";
import type { z } from "zod";
import { aideError, type ErrorBody } from "@aide/contracts";
import { decodeJson, encodeJson, errorReply, okReply } from "./codec.js";

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
  /** Concurrent handlers at most; past it the request is answered BUSY. */
  maxConcurrent?: number;
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
        if (pending.size >= maxConcurrent) {
          respond(message, errorReply(aideError("BUSY", { detail: `${pending.size} requests in progress` })), endpointLogger);
          return;
        }
        const work = handleOne(endpoint, message, endpointLogger, maxBytes, controller.signal);
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

async function handleOne(endpoint: Endpoint, message: ServiceMsg, logger: Logger, maxBytes: number, signal: AbortSignal): Promise<void> {
  const started = performance.now();
  try {
    if (message.data.length > maxBytes) {
      throw aideError("PAYLOAD_TOO_LARGE", { size: message.data.length, limit: maxBytes });
    }
    const raw = decodeJson(message.data);
    const parsed = endpoint.schema.safeParse(raw);
    if (!parsed.success) {
      throw aideError("VALIDATION", { detail: formatZodError(parsed.error) });
    }
    const result = await endpoint.handle(parsed.data, { subject: message.subject, message, logger, signal });
    respond(message, okReply(result), logger);
    logger.debug({ ms: Math.round(performance.now() - started) }, "handled");
  } catch (error) {
    const reply = errorReply(error);
    if (reply.error.code === "INTERNAL") logger.error({ err: error }, "handler failed");
    else logger.info({ code: reply.error.code, msg: reply.error.message }, "request refused");
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
