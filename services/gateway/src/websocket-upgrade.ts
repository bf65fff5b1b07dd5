import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { NatsConnection } from "nats";
import type { Logger } from "pino";
import { WebSocketServer, type WebSocket } from "ws";
import { AideError, aideError, EventsQuerySchema, screenSafeJson, wsCloseCodes, type WsFrame } from "@aide/contracts";
import { errorEnvelope, httpStatusFor, toAideError } from "./http-errors.js";
import type { GatewayBus } from "./gateway-bus.js";
import type { RequestAuth } from "./request-auth.js";
import { streamSessionEvents } from "./session-event-stream.js";
import { createSessionHubs, type SessionHubsOptions } from "./session-hub.js";
import type { FrameFeedOptions } from "./frame-feed.js";
import { validate } from "./validate.js";

export interface WebSocketOptions {
  server: Server;
  auth: RequestAuth;
  connection: NatsConnection;
  bus: GatewayBus;
  logger: Logger;
  /** Largest frame a client may send; a bigger one closes the socket (1009). */
  maxPayloadBytes?: number;
  hubs?: Omit<SessionHubsOptions, "connection" | "logger">;
  feed?: FrameFeedOptions;
  /** Open event sockets at most; past it an upgrade is refused with BUSY (503). */
  maxClients?: number;
}

/** Refuses an upgrade with a plain HTTP response, before any WebSocket handshake. */
function refuse(socket: Duplex, error: AideError, retryAfter?: number): void {
  const status = httpStatusFor(error.code);
  const body = screenSafeJson(errorEnvelope(error));
  const headers = [
    `HTTP/1.1 ${status} ${status === 401 ? "Unauthorized" : status === 403 ? "Forbidden" : status === 429 ? "Too Many Requests" : status === 503 ? "Service Unavailable" : status === 404 ? "Not Found" : "Bad Request"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(retryAfter ? [`Retry-After: ${retryAfter}`] : []),
    "Connection: close",
  ];
  socket.end(headers.join("\r\n") + "\r\n\r\n" + body);
}

/**
 * `/api/events?session=&since=`: the same checks as REST run on the raw upgrade request; only a
 * request that passes them is handed to the WebSocket server.
 */
export function attachEventSocket(options: WebSocketOptions): { close(): Promise<void>; clients(): number } {
  const { logger } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 64 * 1024, perMessageDeflate: false });
  const stops = new Set<() => Promise<void>>();
  const hubs = createSessionHubs({ connection: options.connection, logger, ...options.hubs });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const url = request.url ?? "/";
    const path = url.split("?")[0];
    if (path !== "/api/events") {
      refuse(socket, new AideError("NOT_FOUND", "Not found: no WebSocket at this path"));
      return;
    }
    const { error, retryAfter } = options.auth.check(url, request.headers);
    if (error) {
      refuse(socket, error, retryAfter);
      return;
    }
    if (wss.clients.size >= (options.maxClients ?? 1000)) {
      refuse(socket, aideError("BUSY", { detail: `${wss.clients.size} event sockets open` }));
      return;
    }
    let query: { session: string; since: number };
    try {
      query = validate(EventsQuerySchema, Object.fromEntries(new URLSearchParams(url.slice(path.length + 1))), "query");
    } catch (validationError) {
      refuse(socket, toAideError(validationError));
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => void serve(ws, query));
  };

  async function serve(ws: WebSocket, query: { session: string; since: number }) {
    let stop: (() => Promise<void>) | undefined;
    let closed = false;
    ws.on("message", () => undefined);
    ws.on("error", (error) => logger.debug({ err: error }, "websocket error"));
    ws.on("close", () => {
      closed = true;
      if (stop) {
        stops.delete(stop);
        void stop();
      }
    });
    try {
      const started = await streamSessionEvents({ connection: options.connection, hubs, bus: options.bus, session: query.session, since: query.since, socket: ws, logger, feed: options.feed });
      if (closed) {
        await started();
        return;
      }
      stop = started;
      stops.add(stop);
    } catch (error) {
      const aide = toAideError(error);
      const frame: WsFrame = { type: "error", error: errorEnvelope(aide).error };
      ws.send(screenSafeJson(frame));
      ws.close(aide.code === "SESSION_NOT_FOUND" ? wsCloseCodes.sessionNotFound : wsCloseCodes.unavailable, aide.code);
    }
  }

  options.server.on("upgrade", onUpgrade);
  return {
    clients: () => wss.clients.size,
    async close() {
      options.server.off("upgrade", onUpgrade);
      // A close frame with the reason (1001 going away), then the rest is cut after a moment.
      const goneAway = [...wss.clients].map(
        (client) =>
          new Promise<void>((resolve) => {
            if (client.readyState === client.CLOSED) return resolve();
            client.once("close", () => resolve());
            client.close(wsCloseCodes.goingAway, "the gateway is shutting down; reconnect with since = the last seq received");
          }),
      );
      const cut = setTimeout(() => {
        for (const client of wss.clients) client.terminate();
      }, 1_000);
      await Promise.allSettled(goneAway);
      clearTimeout(cut);
      await Promise.allSettled([...stops].map((stop) => stop()));
      await hubs.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
