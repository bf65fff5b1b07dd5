import { randomBytes } from "node:crypto";
import { secretsEqual } from "./token-check.js";

/**
 * One-time codes for the panel's login link (`aide open`, `POST /api/panel/link`): a code is
 * random, lives `ttlMs` (default 60 s) and is consumed by its first use, so the link that stays in
 * a terminal's scroll-back or the browser's history opens nothing. The bearer token never appears
 * in such a link.
 */
export function createLoginCodes(options: { ttlMs?: number; now?: () => number; maxLive?: number } = {}) {
  const ttlMs = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  const maxLive = options.maxLive ?? 100;
  const codes = new Map<string, number>();
  const sweep = () => {
    for (const [code, expires] of codes) if (expires <= now()) codes.delete(code);
  };
  return {
    mint(): { code: string; expiresAt: number } {
      sweep();
      // A runaway client cannot grow the table: the oldest live code goes first.
      if (codes.size >= maxLive) codes.delete(codes.keys().next().value as string);
      const code = randomBytes(24).toString("base64url");
      const expiresAt = now() + ttlMs;
      codes.set(code, expiresAt);
      return { code, expiresAt };
    },
    /** True once for a live code; false for an unknown, used or expired one. */
    consume(candidate: string): boolean {
      sweep();
      for (const code of codes.keys()) {
        if (secretsEqual(candidate, code)) {
          codes.delete(code);
          return true;
        }
      }
      return false;
    },
  };
}
export type LoginCodes = ReturnType<typeof createLoginCodes>;
