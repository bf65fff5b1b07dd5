import { AideError, aideError } from "@aide/contracts";

/** How long a client should wait before asking again when JetStream did not answer. */
export const jetStreamRetryAfterMs = 1_000;

/** JetStream out of disk (`insufficient resources`, ENOSPC), as opposed to away or electing a leader. */
export function isDiskFullError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /insufficient resources|ENOSPC|no space left/i.test(message);
}

/**
 * What a command answers when the session store or event stream did not: UNAVAILABLE with a
 * retry hint (`details.retry_after_ms`), never INTERNAL: a timeout, no responders (503) or a
 * leader election is the store being away for a moment, not a bug.
 */
export function storeUnavailable(error: unknown, service = "session store"): AideError {
  if (error instanceof AideError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return aideError(
    "UNAVAILABLE",
    { service, detail: `${detail || "no answer"}; retry in ${jetStreamRetryAfterMs / 1000} s` },
    { retry_after_ms: jetStreamRetryAfterMs, reason: isDiskFullError(error) ? "disk_full" : "jetstream" },
  );
}

/** A write refused because another instance changed the record since this one read it. */
export function isWrongRevision(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /wrong last sequence/i.test(message);
}

/** A NATS/JetStream failure that means "away for now" (timeout, no responders, no leader), not a bug. */
export function isJetStreamOutage(error: unknown): boolean {
  if (error instanceof AideError) return false;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return code === "503" || code === "TIMEOUT" || /^(503|TIMEOUT)$|no responders|jetstream .*(not available|temporarily)|no suitable peers|leader/i.test(message);
}
