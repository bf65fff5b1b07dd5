/**
 * Backoff between attempts to store one event (or write one record): doubling from 50 ms up to
 * 2 s, with jitter so instances that lost the same server do not retry in lockstep.
 */
export function publishRetryDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(2_000, 50 * 2 ** Math.min(attempt - 1, 6));
  return Math.round(base * (0.5 + random() / 2));
}

/** A refusal that no retry can change (the message is over the bus's max payload, or not permitted). */
export function isPermanentPublishError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /maximum payload|max_payload|payload too large|permissions violation/i.test(message);
}
