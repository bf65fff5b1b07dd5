import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { AideError } from "@aide/contracts";
import { shuttingDownError, shutdownRetryAfterMs } from "@aide/runtime";
import type { GatewayBus } from "./gateway-bus.js";
import { errorEnvelope } from "./http-errors.js";

const retryAfterSeconds = String(Math.ceil(shutdownRetryAfterMs / 1000));

/**
 * The gateway's graceful stop for REST: counts requests in flight, refuses new ones once closing
 * (UNAVAILABLE in the error envelope, `Connection: close`, a Retry-After), and at the end of the
 * grace makes every bus call still waiting fail with that same error, so each in-flight request
 * gets a response instead of a dropped connection. A request that is waiting on something else —
 * its own body, still arriving from a slow client — is answered that 503 directly by `answerRest`.
 * Every 503 while closing carries a Retry-After.
 */
export interface RequestDrain {
  install(app: FastifyInstance): void;
  /** Wraps the bus so its calls can be ended by `abortAll`. */
  wrapBus(bus: GatewayBus): GatewayBus;
  /** From now on new requests are refused. */
  beginClosing(): void;
  /** Resolves true when no request is in flight, false when `ms` passed first. */
  idle(ms: number): Promise<boolean>;
  /** Every bus call in flight (and any made later) fails with UNAVAILABLE shutting_down. */
  abortAll(): void;
  /** Every request still without a response gets 503 UNAVAILABLE (shutting down) now; returns how many. */
  answerRest(): number;
  inFlight(): number;
}

export function createRequestDrain(logger?: Logger): RequestDrain {
  let active = 0;
  const unanswered = new Set<ServerResponse>();
  let closing = false;
  let aborted: AideError | undefined;
  const waiters = new Set<() => void>();
  const abortListeners = new Set<(error: AideError) => void>();
  const finished = () => {
    active -= 1;
    if (active === 0) for (const wake of [...waiters]) wake();
  };

  return {
    install(app) {
      app.addHook("onRequest", async (_request, reply) => {
        if (closing) {
          reply.header("connection", "close");
          reply.header("retry-after", retryAfterSeconds);
          throw shuttingDownError("gateway");
        }
      });
      // Counted from the first hook until the response is written (or the client went away).
      app.addHook("onRequest", async (request, reply) => {
        active += 1;
        unanswered.add(reply.raw);
        reply.raw.once("close", () => {
          unanswered.delete(reply.raw);
          finished();
        });
        logger?.debug({ method: request.method, path: request.url.split("?")[0] }, "request received");
      });
      app.addHook("onSend", async (_request, reply, payload) => {
        if (closing) {
          reply.header("connection", "close");
          if (reply.statusCode === 503 && !reply.hasHeader("retry-after")) reply.header("retry-after", retryAfterSeconds);
        }
        return payload;
      });
    },
    wrapBus(bus) {
      return {
        ping: (service, timeoutMs) => bus.ping(service, timeoutMs),
        request(subject, payload, replySchema, options) {
          if (aborted) return Promise.reject(aborted);
          return new Promise((resolve, reject) => {
            const stop = (error: AideError) => reject(error);
            abortListeners.add(stop);
            bus
              .request(subject, payload, replySchema, options)
              .then(resolve, reject)
              .finally(() => abortListeners.delete(stop));
          });
        },
      };
    },
    beginClosing() {
      closing = true;
    },
    idle(ms) {
      if (active === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(false);
        }, ms);
        timer.unref();
        waiters.add(wake);
      });
    },
    abortAll() {
      aborted ??= shuttingDownError("gateway");
      for (const stop of [...abortListeners]) stop(aborted);
      abortListeners.clear();
    },
    answerRest() {
      let answered = 0;
      const body = JSON.stringify(errorEnvelope(shuttingDownError("gateway")));
      for (const response of [...unanswered]) {
        unanswered.delete(response);
        if (response.headersSent || response.writableEnded || response.destroyed) continue;
        // Written on the raw response: Fastify's own reply would wait for the body that never comes.
        response.writeHead(503, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "retry-after": retryAfterSeconds, connection: "close" });
        response.end(body);
        answered += 1;
      }
      return answered;
    },
    inFlight: () => active,
  };
}
