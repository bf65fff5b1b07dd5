import type { KV } from "nats";
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

export function kvSessionStore(kv: KV): SessionStore {
  const chains = new Map<string, Promise<void>>();
  return {
    async get(id) {
      const entry = await kv.get(id);
      if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return undefined;
      return SessionRecordSchema.parse(decodeJson(entry.value));
    },
    put(record) {
      const data = encodeJson(record);
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
        await kv.update(id, encodeJson(record), entry.revision);
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
