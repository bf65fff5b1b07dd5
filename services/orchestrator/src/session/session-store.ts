import type { SessionKv } from "./spilling-kv.js";
import { decodeJson, encodeJson } from "@aide/runtime";
import { SessionRecordSchema, isActive, type SessionRecord } from "./session-record.js";

/** Durable session state. `put` calls for one session are applied in call order. */
export interface SessionStore {
  get(id: string): Promise<SessionRecord | undefined>;
  put(record: SessionRecord): Promise<void>;
  list(): Promise<SessionRecord[]>;
  /**
   * Takes over a session whose lease expired (or that has no owner), atomically: of several
   * instances claiming at once, one wins. Returns the claimed record, or undefined.
   */
  claim(id: string, owner: string, now: Date, leaseMs: number): Promise<SessionRecord | undefined>;
}

export function leaseExpired(record: SessionRecord, owner: string, now: Date): boolean {
  return !isActive(record.state) || !record.owner || record.owner === owner || !record.lease_until || Date.parse(record.lease_until) <= now.getTime();
}

/** A KV value must fit in one bus message (1 MB by default); leave room for headers. */
const maxRecordBytes = 900_000;

/**
 * Shrinks what is stored (never the live record) when a session outgrows one KV value: old tool
 * results in the transcript and the tool log's outputs are cut to their ends. A resumed run then
 * sees excerpts of early tool output, which the context policy would have compacted anyway.
 */
export function encodeRecord(record: SessionRecord): Uint8Array {
  let data = encodeJson(record);
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

export function kvSessionStore(kv: SessionKv): SessionStore {
  const chains = new Map<string, Promise<void>>();
  return {
    async get(id) {
      const entry = await kv.get(id);
      if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return undefined;
      return SessionRecordSchema.parse(decodeJson(entry.value));
    },
    put(record) {
      const data = encodeRecord(record);
      const previous = chains.get(record.id) ?? Promise.resolve();
      const next = previous.catch(() => undefined).then(async () => {
        await kv.put(record.id, data);
      });
      chains.set(record.id, next);
      return next;
    },
    async claim(id, owner, now, leaseMs) {
      await (chains.get(id) ?? Promise.resolve()).catch(() => undefined);
      const entry = await kv.get(id);
      if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return undefined;
      const record = SessionRecordSchema.parse(decodeJson(entry.value));
      if (!leaseExpired(record, owner, now)) return undefined;
      record.owner = owner;
      record.lease_until = new Date(now.getTime() + leaseMs).toISOString();
      try {
        await kv.update(id, encodeRecord(record), entry.revision);
      } catch {
        return undefined;
      }
      return record;
    },
    async list() {
      const records: SessionRecord[] = [];
      const keys = await kv.keys();
      const names: string[] = [];
      for await (const key of keys) names.push(key);
      for (const name of names) {
        const record = await this.get(name).catch(() => undefined);
        if (record) records.push(record);
      }
      return records;
    },
  };
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
    async claim(id, owner, now, leaseMs) {
      const record = records.get(id);
      if (!record || !leaseExpired(record, owner, now)) return undefined;
      record.owner = owner;
      record.lease_until = new Date(now.getTime() + leaseMs).toISOString();
      return structuredClone(record);
    },
  };
}
