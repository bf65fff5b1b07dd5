import { KvWatchInclude, type KvEntry } from "nats";
import type { SessionKv } from "./spilling-kv.js";
import { decodeJson, encodeJson } from "@aide/runtime";
import { isWrongRevision, storeUnavailable } from "../bus/jetstream-errors.js";
import { SessionRecordSchema, isLive, type SessionRecord } from "./session-record.js";
import { recordJson } from "./record-json.js";

const textEncoder = new TextEncoder();

/** Another instance holds the session now (it changed the record under a live lease): stop touching it. */
export class LeaseLostError extends Error {
  constructor(
    readonly session: string,
    readonly owner: string,
  ) {
    super(`session ${session} is now run by ${owner}`);
    this.name = "LeaseLostError";
  }
}

/**
 * Durable session state. `put` calls for one session are applied in call order; one `put` is one
 * attempt (it rejects when the store does not answer: the caller retries, see `DurableWriter`), and
 * it rejects with `LeaseLostError` when another instance took the session over in between.
 */
export interface SessionStore {
  get(id: string): Promise<SessionRecord | undefined>;
  put(record: SessionRecord): Promise<void>;
  /** Every session (the `sessions` command). */
  list(): Promise<SessionRecord[]>;
  /**
   * Every stored session's id with the revision of its record, from the store's message headers
   * alone (no record is read): the `sessions` command re-reads only the records whose revision
   * changed since it last read them. Absent: the listing reads every record (`list`).
   */
  revisions?(): Promise<Map<string, number>>;
  /** Only the sessions a sweep must look at (`isLive`): never a finished one. */
  listLive(): Promise<SessionRecord[]>;
  /**
   * Takes over a session whose lease expired (or that has no owner), atomically: of several
   * instances claiming at once, one wins. Returns the claimed record, or undefined.
   */
  claim(id: string, owner: string, now: Date, leaseMs: number): Promise<SessionRecord | undefined>;
}

export function leaseExpired(record: SessionRecord, owner: string, now: Date): boolean {
  return !isLive(record) || !record.owner || record.owner === owner || !record.lease_until || Date.parse(record.lease_until) <= now.getTime();
}

/** A KV value must fit in one bus message (1 MB by default); leave room for headers. */
const maxRecordBytes = 900_000;

/**
 * Shrinks what is stored (never the live record) when a session outgrows one KV value: old tool
 * results in the transcript and the tool log's outputs are cut to their ends. A resumed run then
 * sees excerpts of early tool output, which the context policy would have compacted anyway.
 */
export function encodeRecord(record: SessionRecord): Uint8Array {
  let data: Uint8Array = textEncoder.encode(recordJson(record));
  if (data.length <= maxRecordBytes) return data;
  const copy = structuredClone(record);
  for (const limit of [4_000, 1_000, 200]) {
    const recent = copy.transcript.length - 6;
    copy.transcript.forEach((message, index) => {
      if (index < recent && message.role !== "assistant" && message.content.length > limit) {
        message.content = `[cut to fit the session store]\n${message.content.slice(-limit)}`;
      }
    });
    for (const entry of copy.tool_log) if (entry.output.length > limit) entry.output = entry.output.slice(-limit);
    data = encodeJson(copy);
    if (data.length <= maxRecordBytes) return data;
  }
  return data;
}

/** The marker key of a live session: sweeps list these keys instead of reading every record. */
const livePrefix = "live.";

export function kvSessionStore(kv: SessionKv): SessionStore {
  const chains = new Map<string, Promise<void>>();
  /** The revision this process last read or wrote per session: writes are compare-and-set on it. */
  const revisions = new Map<string, number>();
  /** Whether the live marker exists (undefined: not known here). */
  const marked = new Map<string, boolean>();
  const parse = (entry: KvEntry | null): SessionRecord | undefined => {
    if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return undefined;
    return SessionRecordSchema.parse(decodeJson(entry.value));
  };
  const read = async (id: string): Promise<SessionRecord | undefined> => {
    const entry = await kv.get(id).catch((error: unknown) => {
      throw storeUnavailable(error);
    });
    const record = parse(entry);
    if (record && entry) revisions.set(id, entry.revision);
    return record;
  };
  const writeRecord = async (record: SessionRecord, data: Uint8Array): Promise<void> => {
    for (;;) {
      const revision = revisions.get(record.id);
      if (revision === undefined) {
        revisions.set(record.id, await kv.put(record.id, data));
        return;
      }
      try {
        revisions.set(record.id, await kv.update(record.id, data, revision));
        return;
      } catch (error) {
        if (!isWrongRevision(error)) throw error;
        // Changed since this process wrote it: its own write whose acknowledgement was lost, a
        // command of another instance, or a takeover. Only the last one ends this writer's run.
        const entry = await kv.get(record.id);
        const current = parse(entry);
        if (current?.owner && record.owner && current.owner !== record.owner && !leaseExpired(current, record.owner, new Date())) {
          throw new LeaseLostError(record.id, current.owner);
        }
        if (entry) revisions.set(record.id, entry.revision);
        else revisions.delete(record.id);
      }
    }
  };
  const mark = async (record: SessionRecord, live: boolean): Promise<void> => {
    if (marked.get(record.id) === live) return;
    if (live) await kv.put(livePrefix + record.id, new Uint8Array([49]));
    else await kv.delete(livePrefix + record.id);
    marked.set(record.id, live);
  };
  return {
    get: read,
    put(record) {
      const data = encodeRecord(record);
      const live = isLive(record);
      const previous = chains.get(record.id) ?? Promise.resolve();
      const next = previous
        .catch(() => undefined)
        .then(async () => {
          // The marker goes first and comes off last, so a live record always has one.
          if (live) await mark(record, true);
          await writeRecord(record, data);
          if (!live) await mark(record, false);
        });
      chains.set(record.id, next);
      return next;
    },
    async claim(id, owner, now, leaseMs) {
      await (chains.get(id) ?? Promise.resolve()).catch(() => undefined);
      const entry = await kv.get(id).catch((error: unknown) => {
        throw storeUnavailable(error);
      });
      const record = parse(entry);
      if (!record || !entry) return undefined;
      if (!leaseExpired(record, owner, now)) return undefined;
      record.owner = owner;
      record.lease_until = new Date(now.getTime() + leaseMs).toISOString();
      try {
        revisions.set(id, await kv.update(id, encodeRecord(record), entry.revision));
      } catch {
        return undefined;
      }
      return record;
    },
    async list() {
      return readAll(kv, read, (key) => !key.startsWith(livePrefix));
    },
    revisions: () => revisionsOf(kv, (key) => !key.startsWith(livePrefix)),
    async listLive() {
      const ids = await keysOf(kv, `${livePrefix}>`);
      const records: SessionRecord[] = [];
      for (const key of ids) {
        const id = key.slice(livePrefix.length);
        const record = await read(id).catch(() => undefined);
        if (record && isLive(record)) records.push(record);
        // A marker whose record finished (its owner stopped between the two writes): tidy it.
        else if (record) await kv.delete(key).catch(() => undefined);
      }
      return records;
    },
  };
}

async function keysOf(kv: SessionKv, filter?: string): Promise<string[]> {
  try {
    const keys = await kv.keys(filter);
    const names: string[] = [];
    for await (const key of keys) names.push(key);
    return names;
  } catch (error) {
    throw storeUnavailable(error);
  }
}

/** The last revision of every key `keep` accepts, from a headers-only pass over the bucket (like `keys`). */
async function revisionsOf(kv: SessionKv, keep: (key: string) => boolean): Promise<Map<string, number>> {
  const revisions = new Map<string, number>();
  try {
    let initialized = false;
    const entries = await kv.watch({
      key: ">",
      headers_only: true,
      include: KvWatchInclude.LastValue,
      initializedFn: () => {
        initialized = true;
      },
    });
    // initializedFn runs at once for an empty bucket; else the last stored value comes with delta 0
    // (deletions included: a removed live marker is often the last message).
    if (initialized) entries.stop();
    for await (const entry of entries) {
      if (entry.operation === "PUT" && keep(entry.key)) revisions.set(entry.key, entry.revision);
      else revisions.delete(entry.key);
      if (entry.delta === 0) entries.stop();
    }
  } catch (error) {
    throw storeUnavailable(error);
  }
  return revisions;
}

async function readAll(kv: SessionKv, read: (id: string) => Promise<SessionRecord | undefined>, keep: (key: string) => boolean): Promise<SessionRecord[]> {
  const records: SessionRecord[] = [];
  for (const name of (await keysOf(kv)).filter(keep)) {
    const record = await read(name).catch(() => undefined);
    if (record) records.push(record);
  }
  return records;
}

/** For unit tests: the same contract in memory (records are deep-copied like the KV would). */
export function memorySessionStore(): SessionStore & { records: Map<string, SessionRecord> } {
  const records = new Map<string, SessionRecord>();
  return {
    records,
    async get(id) {
      const record = records.get(id);
      return record ? structuredClone(record) : undefined;
    },
    async put(record) {
      records.set(record.id, structuredClone(record));
    },
    async list() {
      return [...records.values()].map((record) => structuredClone(record));
    },
    async listLive() {
      return [...records.values()].filter((record) => isLive(record)).map((record) => structuredClone(record));
    },
    async claim(id, owner, now, leaseMs) {
      const record = records.get(id);
      if (!record || !leaseExpired(record, owner, now)) return undefined;
      record.owner = owner;
      record.lease_until = new Date(now.getTime() + leaseMs).toISOString();
      return structuredClone(record);
    },
  };
}
