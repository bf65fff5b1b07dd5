import { randomBytes } from "node:crypto";
import { secretsEqual } from "./token-check.js";

export const sessionCookieName = "aide_session";

/**
 * Browser sessions created by the login link: the cookie holds a random id, never the bearer
 * token, and expires with the gateway process or after `ttlMs`.
 */
export function createBrowserSessions(options: { ttlMs?: number; now?: () => number } = {}) {
  const ttlMs = options.ttlMs ?? 12 * 3600_000;
  const now = options.now ?? Date.now;
  const sessions = new Map<string, number>();
  return {
    create(): { id: string; maxAgeSeconds: number } {
      const id = randomBytes(32).toString("base64url");
      sessions.set(id, now() + ttlMs);
      return { id, maxAgeSeconds: Math.floor(ttlMs / 1000) };
    },
    valid(id: string | undefined): boolean {
      if (!id) return false;
      for (const [known, expires] of sessions) {
        if (expires < now()) {
          sessions.delete(known);
          continue;
        }
        if (secretsEqual(id, known)) return true;
      }
      return false;
    },
  };
}
export type BrowserSessions = ReturnType<typeof createBrowserSessions>;
