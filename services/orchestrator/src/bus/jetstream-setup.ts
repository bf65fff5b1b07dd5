import { StorageType, type JetStreamClient, type JetStreamManager, type KV, type NatsConnection } from "nats";
import { auditStreamName, eventStreamName, eventSubjectPrefix, sessionBucketName } from "@aide/contracts";
import { memoryBucketName } from "@aide/runtime";

export interface JetStreamHandles {
  js: JetStreamClient;
  jsm: JetStreamManager;
  sessions: KV;
  memory: KV;
}

async function ensureStream(jsm: JetStreamManager, name: string, subjectList: string[]): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    await jsm.streams.add({ name, subjects: subjectList, storage: StorageType.File });
  }
}

/**
 * Creates (when missing) the event stream, the egress-journal stream and the two KV buckets.
 * Idempotent: every orchestrator instance runs it at start.
 */
export async function ensureJetStream(connection: NatsConnection): Promise<JetStreamHandles> {
  const jsm = await connection.jetstreamManager();
  await ensureStream(jsm, eventStreamName, [`${eventSubjectPrefix}.>`]);
  await ensureStream(jsm, auditStreamName, ["agent.audit.>"]);
  const js = connection.jetstream();
  const sessions = await js.views.kv(sessionBucketName, { history: 1, storage: StorageType.File });
  const memory = await js.views.kv(memoryBucketName, { history: 1, storage: StorageType.File });
  return { js, jsm, sessions, memory };
}

/**
 * The `seq` of the newest event of a session in the stream (0 when none): a restart continues
 * from it. Seqs are contiguous from 1 and the stream keeps every event, so the count of the
 * session's messages (per-subject counts from stream info) is the newest seq.
 */
export async function lastEventSeq(jsm: JetStreamManager, session: string): Promise<number> {
  const info = await jsm.streams.info(eventStreamName, { subjects_filter: `${eventSubjectPrefix}.${session}.>` });
  const subjects = info.state.subjects ?? {};
  return Object.values(subjects).reduce((sum, count) => sum + count, 0);
}
