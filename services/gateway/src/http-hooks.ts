import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { aideError, jsonForScreen } from "@aide/contracts";
import { errorEnvelope, httpStatusFor, toAideError } from "./http-errors.js";
import type { OriginPolicy } from "./origin-policy.js";
import { panelContentSecurityPolicy } from "./panel-routes.js";
import type { RequestAuth } from "./request-auth.js";
import { servedFileContentSecurityPolicy } from "./served-file-policy.js";

const pathOf = (url: string) => url.split("?")[0];

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
export function installHttpHooks(app: FastifyInstance, options: { auth: RequestAuth; originPolicy: OriginPolicy; logger: Logger }): void {
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
    if (request.method === "POST") {
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
  app.setErrorHandler(async (error, request, reply) => {
    const aide = toAideError(error);
    if (aide.code === "INTERNAL") logger.error({ err: error, path: pathOf(request.url) }, "request failed");
    return reply.code(httpStatusFor(aide.code)).type("application/json; charset=utf-8").send(errorEnvelope(aide));
  });
  app.setNotFoundHandler(async (request, reply) => {
    return reply.code(404).send(errorEnvelope(aideError("NOT_FOUND", { detail: `${request.method} ${pathOf(request.url)}` })));
  });
}
