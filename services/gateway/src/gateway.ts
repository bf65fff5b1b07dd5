import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { aideError, EventsQuerySchema } from "@aide/contracts";
import type { NatsConnection } from "nats";
import type { Logger } from "pino";
import { shutdownGraceMsFromEnv } from "@aide/runtime";
import { createBrowserSessions } from "./browser-sessions.js";
import { createGatewayBus, type GatewayBus } from "./gateway-bus.js";
import type { FrameFeedOptions } from "./frame-feed.js";
import { installHttpHooks } from "./http-hooks.js";
import { installJsonBodyParser } from "./json-body.js";
import { buildOpenApiDocument } from "./openapi.js";
import { createOriginPolicy } from "./origin-policy.js";
import { registerPanelRoutes } from "./panel-routes.js";
import { createRateLimiter } from "./rate-limiter.js";
import { readSessionEvents } from "./read-session-events.js";
import { createListenerDrain } from "./listener-drain.js";
import { createRequestDrain } from "./request-drain.js";
import { createRequestAuth } from "./request-auth.js";
import { createRestorePreviews } from "./restore-previews.js";
import { FileReply, type RouteContext, type RouteDefinition } from "./route-definition.js";
import { createEvalReports } from "./eval-reports.js";
import { servedFileContentSecurityPolicy } from "./served-file-policy.js";
import { evalRoutes } from "./routes/eval-routes.js";
import { agentRoutes } from "./routes/agent-routes.js";
import { checkpointRoutes } from "./routes/checkpoint-routes.js";
import { systemRoutes } from "./routes/system-routes.js";
import { panelLinkRoutes } from "./routes/panel-link-routes.js";
import { createLoginCodes } from "./login-codes.js";
import { validate } from "./validate.js";
import { attachEventSocket } from "./websocket-upgrade.js";

const defaultBodyLimitBytes = 1 << 20;

export interface GatewayOptions {
  connection: NatsConnection;
  logger: Logger;
  token: string;
  /** The port to listen on (0: ephemeral); the Host/Origin allow-lists use the bound port. */
  port: number;
  version?: string;
  panelDir: string;
  bodyLimitBytes?: number;
  wsMaxPayloadBytes?: number;
  /** Per-session event memory (tests make it small to exercise the replay path). */
  hubRingEvents?: number;
  /** Per-client back-pressure limits (tests make them small to exercise `resume`). */
  wsFeed?: FrameFeedOptions;
  wsMaxClients?: number;
  rateLimit?: { max: number; windowMs: number };
  /** How long a panel login code lives (default 60 s). */
  loginCodeTtlMs?: number;
  /** Injected for tests; defaults to the bus connection. */
  bus?: GatewayBus;
  now?: () => number;
  /** Bind address (default 127.0.0.1), HTTPS and the extra Host names: gateway-exposure.ts checked them. */
  host?: string;
  tls?: { cert: Buffer; key: Buffer };
  allowedHosts?: string[];
  /** `$AIDE_HOME/eval`, where `aide eval` writes its runs (absent: `GET /api/eval/latest` is NOT_FOUND). */
  evalDir?: string;
  /** As it stops, how long a connection with no request yet may take to send one (default 500 ms; listener-drain.ts). */
  closeQuietMs?: number;
}

export interface Gateway {
  app: FastifyInstance;
  /** Listens on `host` (127.0.0.1 unless configured); resolves with the bound port. */
  listen(): Promise<number>;
  port(): number;
  /**
   * Graceful stop: WebSockets get a close frame (1001, with the reason), new requests are
   * refused (503 UNAVAILABLE, `Connection: close`, Retry-After) — including those on connections
   * accepted but not yet parsed, and those arriving in the first moments of the stop (the
   * listener keeps accepting briefly; listener-drain.ts) —, idle connections are closed once
   * their quiet period passed with no request, and
   * in-flight requests may finish for `graceMs` (default `AIDE_SHUTDOWN_GRACE_MS`, 5 s); those
   * still waiting on the bus then answer 503 UNAVAILABLE (`reason: "shutting_down"`). Every
   * request gets a response.
   */
  close(graceMs?: number): Promise<void>;
}

/** Every REST route, in one table (also the source of the OpenAPI document). */
export function gatewayRoutes(): RouteDefinition[] {
  return [...agentRoutes(), ...checkpointRoutes(), ...systemRoutes(), ...panelLinkRoutes(), ...evalRoutes()];
}

export function createGateway(options: GatewayOptions): Gateway {
  const logger = options.logger.child({ module: "http" });
  const version = options.version ?? "0.1.0";
  let boundPort = options.port;
  // requestTimeout bounds a slow sender (the longest bus call, a restore, has 120 s). Closing:
  // the listener drain closes idle connections only after they had time to send a request
  // (Fastify's forceCloseConnections would destroy them at once, unparsed requests included);
  // requests that arrive while closing are refused by the drain with the error envelope
  // (Fastify's own return503OnClosing answer has another body shape, and would come first).
  const app = Fastify({
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
    logger: false,
    bodyLimit: options.bodyLimitBytes ?? defaultBodyLimitBytes,
    return503OnClosing: false,
    forceCloseConnections: false,
    requestTimeout: 180_000,
  });
  const drain = createRequestDrain(logger);
  const listener = createListenerDrain(app.server, { quietMs: options.closeQuietMs });
  app.removeContentTypeParser("text/plain");
  installJsonBodyParser(app);
  const browserSessions = createBrowserSessions({ now: options.now });
  const originPolicy = createOriginPolicy(() => boundPort, options.allowedHosts ?? [], options.tls ? "https" : "http");
  const auth = createRequestAuth({
    token: options.token,
    originPolicy,
    browserSessions,
    rateLimiter: createRateLimiter({ ...(options.rateLimit ?? { max: 3000, windowMs: 60_000 }), now: options.now }),
  });
  const bus = drain.wrapBus(options.bus ?? createGatewayBus(options.connection));
  const loginCodes = createLoginCodes({ now: options.now, ttlMs: options.loginCodeTtlMs });
  const context: RouteContext = {
    bus,
    logger,
    restorePreviews: createRestorePreviews({ now: options.now }),
    version,
    loginCodes,
    sessionEvents: (session, lastSeq) => readSessionEvents(options.connection, session, lastSeq),
    evalReports: createEvalReports(options.evalDir),
  };
  const routes = gatewayRoutes();
  const openApi = buildOpenApiDocument(routes, version);

  drain.install(app);
  installHttpHooks(app, { auth, originPolicy, logger, bodyLimitBytes: options.bodyLimitBytes ?? defaultBodyLimitBytes });

  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      handler: async (request, reply) => {
        const query = route.query ? validate(route.query, request.query, "query") : {};
        const body = route.body ? validate(route.body, request.body, "body") : {};
        const params = route.params ? validate(route.params, request.params, "path") : {};
        const result = await route.handle({ query, body, params }, context);
        if (!(result instanceof FileReply)) return result;
        // A served file (an eval report's HTML or SVG) runs nothing: a sandboxed, script-less page.
        return reply.header("content-security-policy", servedFileContentSecurityPolicy).type(result.contentType).send(result.body);
      },
    });
  }
  app.get("/api/openapi.json", async () => openApi);
  // The WebSocket's address asked as plain HTTP (no Upgrade header: the upgrade never reaches here).
  app.get("/api/events", async (request, reply) => {
    validate(EventsQuerySchema, request.query, "query");
    reply.header("upgrade", "websocket");
    throw aideError("UPGRADE_REQUIRED", { path: "/api/events" });
  });
  registerPanelRoutes(app, { panelDir: options.panelDir, token: options.token, browserSessions, loginCodes, secureCookie: options.tls !== undefined });

  const sockets = attachEventSocket({
    server: app.server,
    auth,
    connection: options.connection,
    bus,
    logger: options.logger.child({ module: "events" }),
    maxPayloadBytes: options.wsMaxPayloadBytes,
    hubs: { ringEvents: options.hubRingEvents },
    feed: options.wsFeed,
    maxClients: options.wsMaxClients,
  });

  return {
    app,
    async listen() {
      await app.listen({ host: options.host ?? "127.0.0.1", port: options.port });
      boundPort = (app.server.address() as AddressInfo).port;
      return boundPort;
    },
    port: () => boundPort,
    async close(graceMs = shutdownGraceMsFromEnv()) {
      drain.beginClosing();
      const listenerClosed = listener.close();
      await sockets.close();
      if (!(await drain.idle(graceMs))) {
        logger.warn({ in_flight: drain.inFlight(), grace_ms: graceMs }, "requests outlived the shutdown grace; answering them UNAVAILABLE");
        drain.abortAll();
        if (!(await drain.idle(500))) {
          // Waiting on no bus call (a body still arriving): answered here, before any socket closes.
          logger.warn({ answered: drain.answerRest() }, "requests still unanswered after the grace; answered 503 UNAVAILABLE");
          await drain.idle(1_000);
        }
      }
      await listenerClosed;
      // A connection still open now has nothing left to answer (its client went quiet).
      const closed = app.close();
      const timer = setTimeout(() => app.server.closeAllConnections(), 1_000);
      await closed;
      clearTimeout(timer);
    },
  };
}
