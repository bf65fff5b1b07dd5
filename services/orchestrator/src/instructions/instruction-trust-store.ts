import { createHash } from "node:crypto";
import type { KV } from "nats";
import { InstructionTrustRecordSchema, type InstructionTrustRecord } from "@aide/contracts";
import { decodeJson, encodeJson } from "@aide/runtime";

/**
 * The person's consent decisions on project instruction files, per (workspace, relative path),
 * bound to the sha256 of the bytes they saw (KV bucket `aide_instruction_trust`). A decision for
 * another digest is kept and returned, so the caller can say the file changed.
 */
export interface InstructionTrustStore {
  get(workspace: string, path: string): Promise<InstructionTrustRecord | undefined>;
  put(workspace: string, record: InstructionTrustRecord): Promise<void>;
  /** False when no decision was stored. */
  forget(workspace: string, path: string): Promise<boolean>;
}

/** The key of a (workspace, path): sha256(workspace + "\0" + path) hex, as the contract says. */
export function instructionTrustKey(workspace: string, path: string): string {
  return createHash("sha256").update(`${workspace}\0${path}`).digest("hex");
}

export function kvInstructionTrustStore(kv: KV): InstructionTrustStore {
  const read = async (key: string) => {
    const entry = await kv.get(key);
    if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return undefined;
    const parsed = InstructionTrustRecordSchema.safeParse(decodeJson(entry.value));
    return parsed.success ? parsed.data : undefined;
  };
  return {
    get: (workspace, path) => read(instructionTrustKey(workspace, path)),
    async put(workspace, record) {
      await kv.put(instructionTrustKey(workspace, record.path), encodeJson(InstructionTrustRecordSchema.parse(record)));
    },
    async forget(workspace, path) {
      const key = instructionTrustKey(workspace, path);
      if ((await read(key)) === undefined) return false;
      await kv.delete(key);
      return true;
    },
  };
}

/** For loop tests without a bus. */
export function memoryInstructionTrustStore(): InstructionTrustStore {
  const records = new Map<string, InstructionTrustRecord>();
  return {
    get: async (workspace, path) => records.get(instructionTrustKey(workspace, path)),
    async put(workspace, record) {
      records.set(instructionTrustKey(workspace, record.path), InstructionTrustRecordSchema.parse(record));
    },
    forget: async (workspace, path) => records.delete(instructionTrustKey(workspace, path)),
  };
}
