import type { FastifyInstance, FastifyReply } from "fastify";
import type { Logger } from "pino";
import { AideError, aideError, jsonForScreen } from "@aide/contracts";
import { errorEnvelope, httpStatusFor, toAideError } from "./http-errors.js";
import type { OriginPolicy } from "./origin-policy.js";
import { panelContentSecurityPolicy } from "./panel-routes.js";
import type { RequestAuth } from "./request-auth.js";
import { servedFileContentSecurityPolicy } from "./served-file-policy.js";

const pathOf = (url: string) => url.split("?")[0];

/** The methods a path can be declared under, in the order an `Allow` header lists them. */
const routeMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The panel's pages check their credential themselves (the login link's code, or the session
 * cookie; without one they answer the HTML login note, 401): `/` and a session's address `/s/<id>`.
 */
const selfAuthenticatingPage = (method: string, path: string) => method === "GET" && (path === "/" || /^\/s\/[^/]+$/.test(path));

/**
 * The checks and headers every HTTP request gets: Host/Origin, credential and rate limit (see
 * request-auth.ts), JSON-only POST bodies, security headers, the error envelope. Request lines are
 * logged by path only: a query string could hold a login token.
 */
export function installHttpHooks(app: FastifyInstance, options: { auth: RequestAuth; originPolicy: OriginPolicy; logger: Logger; bodyLimitBytes?: number }): void {
  const { auth, originPolicy, logger } = options;
  app.addHook("onRequest", async (request, reply) => {
    // The login link authenticates itself (the token in the query, once); the pages check the cookie.
    if (selfAuthenticatingPage(request.method, pathOf(request.url))) {
      const originError = originPolicy.check({ host: request.headers.host, origin: request.headers.origin });
      if (originError) throw originError;
      return;
    }
    const { error, retryAfter } = auth.check(request.url, request.headers);
    if (retryAfter) reply.header("retry-after", String(retryAfter));
    if (error) throw error;
    // A request no route takes is answered for that (404, or 405 with Allow), whatever its body.
    if (request.method === "POST" && !request.is404) {
      const type = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
      if (type !== "application/json") throw aideError("UNSUPPORTED_MEDIA_TYPE");
    }
  });
  app.addHook("onSend", async (request, reply, payload) => {
    // A served file keeps its stricter, sandboxing policy; everything else gets the panel's.
    if (reply.getHeader("content-security-policy") !== servedFileContentSecurityPolicy) reply.header("content-security-policy", panelContentSecurityPolicy);
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    reply.header("referrer-policy", "no-referrer");
    reply.header("cross-origin-resource-policy", "same-origin");
    if (request.url.startsWith("/api/")) reply.header("cache-control", "no-store");
    // JSON answers travel with every control and invisible character as a \uXXXX escape (the same
    // value once parsed), like the bus and the WebSocket: curl in a terminal shows no raw byte.
    if (typeof payload === "string" && String(reply.getHeader("content-type") ?? "").startsWith("application/json")) return jsonForScreen(payload);
    return payload;
  });
  app.addHook("onResponse", async (request, reply) => {
    logger.debug({ method: request.method, path: pathOf(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, "request");
  });
  // A request no route takes: 405 with `Allow` when its path exists under other methods, else 404.
  const noRoute = (method: string, url: string): { error: AideError; allow?: string } => {
    const path = pathOf(url);
    const allowed = routeMethods.filter((each) => app.findRoute({ method: each, url: path }) !== null);
    if (allowed.length === 0) return { error: aideError("NOT_FOUND", { detail: `${method} ${path}` }) };
    const allow = allowed.join(", ");
    return { error: aideError("METHOD_NOT_ALLOWED", { method, path, allowed: allow }), allow };
  };
  const send = (reply: FastifyReply, error: AideError, allow?: string) => {
    if (allow !== undefined) reply.header("allow", allow);
    return reply.code(httpStatusFor(error.code)).type("application/json; charset=utf-8").send(errorEnvelope(error));
  };
  app.setErrorHandler(async (error, request, reply) => {
    // Fastify refuses a request with no route on its own grounds too (a QUERY without a
    // Content-Type): it has no route, and that is the answer.
    if (request.is404 && !(error instanceof AideError)) {
      const { error: refusal, allow } = noRoute(request.method, request.url);
      return send(reply, refusal, allow);
    }
    const aide = toAideError(error, { bodyLimitBytes: options.bodyLimitBytes, contentLength: request.headers["content-length"] });
    if (aide.code === "INTERNAL") logger.error({ err: error, path: pathOf(request.url) }, "request failed");
    return send(reply, aide);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const { error, allow } = noRoute(request.method, request.url);
    return send(reply, error, allow);
  });
}
