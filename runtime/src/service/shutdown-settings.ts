import { aideError, type AideError } from "@aide/contracts";

/** How long a stopping service lets in-flight requests finish before it answers them itself. */
export const defaultShutdownGraceMs = 5_000;

/** What a client waits before asking again (another instance, or this one restarted). */
export const shutdownRetryAfterMs = 1_000;

/**
 * Past the grace a stopping process needs this long at most to abort what is left, answer it and
 * drain its bus connection; the supervisor waits grace + this (+ 1 s) before SIGKILL.
 */
export const shutdownMarginMs = 3_000;

/** `AIDE_SHUTDOWN_GRACE_MS` (milliseconds, 0 to 600000), default 5 s. */
export function shutdownGraceMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AIDE_SHUTDOWN_GRACE_MS;
  if (raw === undefined || raw === "") return defaultShutdownGraceMs;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 600_000) {
    throw aideError("CONFIG_INVALID", { detail: `AIDE_SHUTDOWN_GRACE_MS must be an integer from 0 to 600000, not ${JSON.stringify(raw)}` });
  }
  return value;
}

/** The answer to a request that a stopping service will not finish: terminal for this try, retryable. */
export function shuttingDownError(service: string): AideError {
  return aideError("UNAVAILABLE", { service, detail: "it is shutting down; send the request again" }, { reason: "shutting_down", retryable: true, retry_after_ms: shutdownRetryAfterMs });
}
