import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first so
 * the comparison does not leak the token's length either.
 */
export function secretsEqual(presented: string | undefined, expected: string): boolean {
  if (presented === undefined || presented.length === 0 || presented.length > 4096) return false;
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token from `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== "string") return undefined;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header.trim());
  return match ? match[1] : undefined;
}

/** A short, non-reversible key for rate limiting and logs (never the token itself). */
export function tokenKey(secret: string): string {
  return createHash("sha256")
    .update("aide-rate-key:" + secret)
    .digest("hex")
    .slice(0, 16);
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
