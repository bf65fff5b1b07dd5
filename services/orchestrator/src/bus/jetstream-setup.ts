import { DiscardPolicy, RetentionPolicy, StorageType, nanos, type JetStreamClient, type JetStreamManager, type KV, type NatsConnection, type StreamConfig } from "nats";
import type { Logger } from "pino";
import { aideError, auditStreamName, eventStreamName, eventSubjectPrefix, instructionTrustBucketName, sessionBucketName } from "@aide/contracts";
import { memoryBucketName } from "@aide/runtime";
import type { JetStreamSettings } from "./jetstream-settings.js";

export interface JetStreamHandles {
  js: JetStreamClient;
  jsm: JetStreamManager;
  sessions: KV;
  memory: KV;
  /** The person's consent decisions on project instruction files (AGENTS.md…). */
  instructionTrust: KV;
  /** What differs between the settings and the streams/buckets found (empty when they match). */
  mismatches: string[];
}

type Wanted = Pick<StreamConfig, "num_replicas"> & Partial<Pick<StreamConfig, "max_age" | "max_bytes" | "duplicate_window">>;

/** Compares the settings that matter with an existing stream's config; one line per difference. */
export function compareStream(name: string, found: Partial<StreamConfig>, wanted: Wanted): string[] {
  const lines: string[] = [];
  for (const key of ["num_replicas", "max_age", "max_bytes", "duplicate_window"] as const) {
    const want = wanted[key];
    if (want === undefined) continue;
    const have = found[key] ?? 0;
    if (have !== want) lines.push(`${name}.${key} is ${have}, the settings say ${want}`);
  }
  return lines;
}

function creationError(name: string, replicas: number, error: unknown): Error {
  const detail = (error as Error).message;
  if (/replicas > 1 not supported|insufficient resources|no suitable peers/i.test(detail)) {
    return aideError("CONFIG_INVALID", {
      detail: `cannot create ${name} with ${replicas} replicas (${detail}); AIDE_JETSTREAM_REPLICAS must not exceed the JetStream servers of the cluster (1 on a single server)`,
    });
  }
  return error as Error;
}

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string; subjects: string[] }, wanted: Wanted): Promise<string[]> {
  try {
    const info = await jsm.streams.info(config.name);
    return compareStream(config.name, info.config, wanted);
  } catch (error) {
    if (!/stream not found/i.test((error as Error).message)) throw error;
  }
  try {
    await jsm.streams.add({ ...config, ...wanted, storage: StorageType.File });
  } catch (error) {
    throw creationError(config.name, wanted.num_replicas, error);
  }
  return [];
}

async function ensureBucket(connection: NatsConnection, jsm: JetStreamManager, bucket: string, wanted: Wanted): Promise<{ kv: KV; mismatches: string[] }> {
  const stream = `KV_${bucket}`;
  let mismatches: string[] = [];
  try {
    mismatches = compareStream(stream, (await jsm.streams.info(stream)).config, wanted);
  } catch (error) {
    if (!/stream not found/i.test((error as Error).message)) throw error;
  }
  try {
    const kv = await connection.jetstream().views.kv(bucket, {
      history: 1,
      storage: StorageType.File,
      replicas: wanted.num_replicas,
      ...(wanted.max_age ? { ttl: wanted.max_age / 1_000_000 } : {}),
      ...(wanted.max_bytes ? { max_bytes: wanted.max_bytes } : {}),
    });
    return { kv, mismatches };
  } catch (error) {
    throw creationError(stream, wanted.num_replicas, error);
  }
}

/**
 * Creates (when missing) the event stream, the egress-journal stream and the two KV buckets with
 * the configured replicas and limits, and reports where existing ones differ. Idempotent: every
 * orchestrator instance runs it at start.
 */
export async function ensureJetStream(connection: NatsConnection, settings: JetStreamSettings, logger: Logger): Promise<JetStreamHandles> {
  const jsm = await connection.jetstreamManager();
  const replicas = settings.replicas;
  const mismatches = [
    ...(await ensureStream(
      jsm,
      { name: eventStreamName, subjects: [`${eventSubjectPrefix}.>`], retention: RetentionPolicy.Limits, discard: DiscardPolicy.Old },
      {
        num_replicas: replicas,
        max_age: nanos(settings.eventsMaxAgeMs),
        max_bytes: settings.eventsMaxBytes,
        duplicate_window: nanos(settings.eventsDuplicateWindowMs),
      },
    )),
    // The egress journal is an audit trail: replicated, never aged out by these settings.
    ...(await ensureStream(jsm, { name: auditStreamName, subjects: ["agent.audit.>"] }, { num_replicas: replicas })),
  ];
  const sessions = await ensureBucket(connection, jsm, sessionBucketName, {
    num_replicas: replicas,
    max_age: nanos(settings.sessionsMaxAgeMs),
    max_bytes: settings.sessionsMaxBytes,
  });
  const memory = await ensureBucket(connection, jsm, memoryBucketName, { num_replicas: replicas });
  const instructionTrust = await ensureBucket(connection, jsm, instructionTrustBucketName, { num_replicas: replicas });
  mismatches.push(...sessions.mismatches, ...memory.mismatches, ...instructionTrust.mismatches);
  if (settings.strict && mismatches.length > 0) {
    throw aideError("CONFIG_INVALID", { detail: `JetStream differs from the settings (AIDE_JETSTREAM_STRICT=1): ${mismatches.join("; ")}` });
  }
  for (const line of mismatches) logger.warn({ mismatch: line }, "a JetStream stream or bucket differs from the settings; change it (nats stream edit) or the settings");
  return { js: connection.jetstream(), jsm, sessions: sessions.kv, memory: memory.kv, instructionTrust: instructionTrust.kv, mismatches };
}

/**
 * The `seq` of the newest event of a session in the stream (0 when none): a restart continues
 * from it. Seqs are contiguous from 1 and every session's events are stored one at a time in seq
 * order, so the count of the session's messages (per-subject counts) is the newest seq. Once
 * retention has aged out a session's oldest events the count is lower; the record's own
 * `last_seq` (the caller takes the larger) covers that.
 */
export async function lastEventSeq(jsm: JetStreamManager, session: string): Promise<number> {
  const info = await jsm.streams.info(eventStreamName, { subjects_filter: `${eventSubjectPrefix}.${session}.>` });
  const subjects = info.state.subjects ?? {};
  return Object.values(subjects).reduce((sum, count) => sum + count, 0);
}
