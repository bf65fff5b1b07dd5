import { AideError, aideError } from "@aide/contracts";

/**
 * When a request may be sent again. BUSY is always retried: the responder refused it before any
 * of it ran. "No responder" (no subscriber on the subject when it was published, e.g. a service
 * restarting) is retried only when `noResponders` is set: the caller says the request is
 * idempotent or deduplicated by the service (the tools service runs a call id once). A timeout or
 * INTERRUPTED is never retried here: the request may have run.
 */
export interface RetryPolicy {
  /** Total time from the first attempt within which a retry may still start. */
  deadlineMs: number;
  noResponders?: boolean;
  /**
   * How long no-responders are retried (default 10 s): a service restarting is back within it;
   * one that stays away is reported (UNAVAILABLE) then, not at the end of the busy deadline.
   */
  restartWindowMs?: number;
  /** Also retry INTERRUPTED (the responder died mid-request): only for requests without effects (a model chat). */
  interrupted?: boolean;
  /** First backoff ceiling (default 100 ms); doubles per attempt up to `maxDelayMs` (default 5 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Seams for tests. */
  random?: () => number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Ends the waiting between attempts (a run aborted). */
  signal?: AbortSignal;
}

/** Exponential backoff with full jitter, never below the responder's hint. */
export function backoffDelayMs(attempt: number, hintMs: number | undefined, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs" | "random">): number {
  const base = policy.baseDelayMs ?? 100;
  const cap = policy.maxDelayMs ?? 5_000;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 20));
  const jittered = (policy.random ?? Math.random)() * ceiling;
  return Math.max(hintMs ?? 0, Math.round(jittered));
}

function retryable(error: unknown, policy: RetryPolicy): { hintMs?: number } | undefined {
  if (!(error instanceof AideError)) return undefined;
  if (error.code === "BUSY") {
    const hint = error.details?.["retry_after_ms"];
    return { hintMs: typeof hint === "number" && Number.isFinite(hint) && hint >= 0 ? hint : undefined };
  }
  if (error.code === "UNAVAILABLE" && error.details?.["reason"] === "no_responder" && policy.noResponders === true) return {};
  if (error.code === "INTERRUPTED" && policy.interrupted === true) return {};
  return undefined;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aideError("ABORTED"));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(aideError("ABORTED"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `attempt(remainingMs)` (the time left before the deadline, at least 1 ms) until it succeeds, fails for good, or the deadline is spent. A
 * retryable failure that outlives the deadline becomes UNAVAILABLE (`details.reason: "busy"` or
 * `"no_responder"`, `attempts`): the caller never sees BUSY itself.
 */
export async function withRetry<T>(service: string, policy: RetryPolicy, attempt: (remainingMs: number) => Promise<T>): Promise<T> {
  const now = policy.now ?? Date.now;
  const sleep = policy.sleep ?? defaultSleep;
  const started = now();
  for (let count = 0; ; count += 1) {
    const remaining = policy.deadlineMs - (now() - started);
    try {
      return await attempt(Math.max(1, remaining));
    } catch (error) {
      const verdict = retryable(error, policy);
      if (verdict === undefined) throw error;
      const delay = backoffDelayMs(count, verdict.hintMs, policy);
      const noResponder = (error as AideError).code === "UNAVAILABLE";
      const limit = noResponder ? Math.min(policy.deadlineMs, policy.restartWindowMs ?? 10_000) : policy.deadlineMs;
      const left = limit - (now() - started);
      if (delay >= left) {
        if ((error as AideError).code === "INTERRUPTED") throw error;
        const reason = (error as AideError).code === "BUSY" ? "busy" : "no_responder";
        const waited = Math.round(now() - started);
        throw aideError(
          "UNAVAILABLE",
          {
            service,
            detail: reason === "busy" ? `still busy after ${count + 1} attempts over ${waited} ms (${(error as Error).message})` : `no responder after ${count + 1} attempts over ${waited} ms`,
          },
          { reason, attempts: count + 1 },
        );
      }
      await sleep(delay, policy.signal);
    }
  }
}
