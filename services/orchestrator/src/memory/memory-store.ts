import type { KV } from "nats";
import { z } from "zod";
import { decodeJson, encodeJson } from "@aide/runtime";

export const MemorySchema = z.object({ id: z.string(), user: z.string(), text: z.string(), created_at: z.string() });
export type Memory = z.infer<typeof MemorySchema>;

/** Durable per-user memories (seed 002): recency-first recall with an optional substring filter. */
export interface MemoryStore {
  remember(memory: Memory): Promise<void>;
  recall(user: string, query?: string, limit?: number): Promise<Memory[]>;
  forget(user: string, id: string): Promise<boolean>;
}

function filterAndSort(memories: Memory[], query: string | undefined, limit: number): Memory[] {
  const needle = query?.trim().toLowerCase();
  return memories
    .filter((memory) => !needle || memory.text.toLowerCase().includes(needle))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, limit);
}

export function kvMemoryStore(kv: KV): MemoryStore {
  return {
    async remember(memory) {
      await kv.put(`${memory.user}.${memory.id}`, encodeJson(memory));
    },
    async recall(user, query, limit = 8) {
      const keys: string[] = [];
      for await (const key of await kv.keys(`${user}.*`)) keys.push(key);
      const memories: Memory[] = [];
      for (const key of keys) {
        const entry = await kv.get(key);
        if (!entry || entry.operation !== "PUT" || entry.value.length === 0) continue;
        const parsed = MemorySchema.safeParse(decodeJson(entry.value));
        if (parsed.success) memories.push(parsed.data);
      }
      return filterAndSort(memories, query, limit);
    },
    async forget(user, id) {
      const key = `${user}.${id}`;
      const entry = await kv.get(key);
      if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return false;
      await kv.delete(key);
      return true;
    },
  };
}

export function memoryMemoryStore(): MemoryStore {
  const memories = new Map<string, Memory>();
  return {
    async remember(memory) {
      memories.set(`${memory.user}.${memory.id}`, memory);
    },
    async recall(user, query, limit = 8) {
      return filterAndSort([...memories.values()].filter((memory) => memory.user === user), query, limit);
    },
    async forget(user, id) {
      return memories.delete(`${user}.${id}`);
    },
  };
}
