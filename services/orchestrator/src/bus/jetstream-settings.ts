import { aideError } from "@aide/contracts";

/**
 * Replicas, limits and retention of the event stream, the audit stream and the two KV buckets
 * (`AIDE_JETSTREAM_*`, `AIDE_EVENTS_*`, `AIDE_SESSIONS_*`). Applied when the orchestrator creates
 * them and compared with what exists at every start: a mismatch is logged as a warning, or, with
 * `AIDE_JETSTREAM_STRICT=1`, refuses the start with CONFIG_INVALID naming each difference. Nothing
 * existing is changed behind the operator's back.
 * One replica fits a single server; three is the recommendation on a cluster of three or more.
 */
export interface JetStreamSettings {
  /** `AIDE_JETSTREAM_REPLICAS`, default 1: every stream and bucket. */
  replicas: number;
  /** `AIDE_EVENTS_MAX_AGE_MS`, default 30 days: events older than this are dropped. */
  eventsMaxAgeMs: number;
  /** `AIDE_EVENTS_MAX_BYTES`, default 1 GiB: past it the oldest events go. */
  eventsMaxBytes: number;
  /**
   * `AIDE_EVENTS_DUPLICATE_WINDOW_MS`, default 10 minutes: a republished event (same message id)
   * within it is stored once. Longer than a lease plus a store outage.
   */
  eventsDuplicateWindowMs: number;
  /** `AIDE_SESSIONS_MAX_AGE_MS`, default 30 days: a session not written for this long is dropped. */
  sessionsMaxAgeMs: number;
  /** `AIDE_SESSIONS_MAX_BYTES`, default 1 GiB. */
  sessionsMaxBytes: number;
  /** `AIDE_JETSTREAM_STRICT=1`: a stream or bucket that differs from these settings stops the start. */
  strict: boolean;
}

const day = 86_400_000;

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw aideError("CONFIG_INVALID", { detail: `${name} must be a positive integer, got ${raw}` });
  return value;
}

export function jetStreamSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): JetStreamSettings {
  const replicas = positiveInteger(env, "AIDE_JETSTREAM_REPLICAS", 1);
  if (replicas > 5) throw aideError("CONFIG_INVALID", { detail: `AIDE_JETSTREAM_REPLICAS must be 1 to 5, got ${replicas}` });
  return {
    replicas,
    eventsMaxAgeMs: positiveInteger(env, "AIDE_EVENTS_MAX_AGE_MS", 30 * day),
    eventsMaxBytes: positiveInteger(env, "AIDE_EVENTS_MAX_BYTES", 1024 ** 3),
    eventsDuplicateWindowMs: positiveInteger(env, "AIDE_EVENTS_DUPLICATE_WINDOW_MS", 600_000),
    sessionsMaxAgeMs: positiveInteger(env, "AIDE_SESSIONS_MAX_AGE_MS", 30 * day),
    sessionsMaxBytes: positiveInteger(env, "AIDE_SESSIONS_MAX_BYTES", 1024 ** 3),
    strict: env.AIDE_JETSTREAM_STRICT === "1",
  };
}
