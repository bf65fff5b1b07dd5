import type { IncomingHttpHeaders } from "node:http";
import { aideError, type AideError } from "@aide/contracts";
import type { BrowserSessions } from "./browser-sessions.js";
import { sessionCookieName } from "./browser-sessions.js";
import type { OriginPolicy } from "./origin-policy.js";
import type { RateLimiter } from "./rate-limiter.js";
import { bearerToken, cookieValue, secretsEqual, tokenKey } from "./token-check.js";

export interface RequestAuthOptions {
  token: string;
  originPolicy: OriginPolicy;
  browserSessions: BrowserSessions;
  rateLimiter: RateLimiter;
}

/** Query parameter names a token could travel in; all are refused (URLs end up in logs and history). */
const tokenParameters = ["token", "access_token", "auth", "bearer"];

export function hasQueryToken(url: string): boolean {
  const query = url.indexOf("?");
  if (query < 0) return false;
  const parameters = new URLSearchParams(url.slice(query + 1));
  return tokenParameters.some((name) => parameters.has(name));
}

/**
 * The checks every request and every WebSocket upgrade passes, in order: Host and Origin
 * allow-lists, no token in the query, a bearer token or a browser session cookie, then the rate
 * limit keyed by that credential. Returns the failure, or undefined to proceed.
 */
export function createRequestAuth(options: RequestAuthOptions) {
  return {
    check(url: string, headers: IncomingHttpHeaders): { error?: AideError; retryAfter?: number } {
      const originError = options.originPolicy.check({ host: headers.host, origin: headers.origin });
      if (originError) return { error: originError };
      if (hasQueryToken(url)) return { error: aideError("UNAUTHORIZED") };
      const bearer = bearerToken(headers.authorization);
      let key: string | undefined;
      if (bearer !== undefined) {
        if (secretsEqual(bearer, options.token)) key = tokenKey(bearer);
      } else {
        const cookie = cookieValue(headers.cookie, sessionCookieName);
        if (options.browserSessions.valid(cookie)) key = tokenKey(cookie as string);
      }
      if (key === undefined) return { error: aideError("UNAUTHORIZED") };
      const retryAfter = options.rateLimiter.take(key);
      if (retryAfter > 0) return { error: aideError("RATE_LIMITED", { retryAfter }), retryAfter };
      return {};
    },
  };
}
export type RequestAuth = ReturnType<typeof createRequestAuth>;
