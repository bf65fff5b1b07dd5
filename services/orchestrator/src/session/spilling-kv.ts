import { createHash, randomUUID } from "node:crypto";
import type { KV, KvEntry, ObjectStore } from "nats";
import type { Logger } from "pino";
import { z } from "zod";
import { decodeJson, encodeJson } from "@aide/runtime";

/** The KV operations the session store uses (`watch` for headers only: the revisions of the keys). */
export type SessionKv = Pick<KV, "get" | "put" | "update" | "keys" | "delete" | "watch">;

const MarkerSchema = z.object({ $spilled: z.object({ object: z.string().min(1), size: z.number().int().nonnegative(), sha256: z.string().length(64) }) });

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export interface SpillingKvOptions {
  /** Values larger than this go to the object store; the KV holds a small marker. */
  limitBytes: number;
  logger: Logger;
}

/**
 * A KV whose values may exceed one bus message (a session whose model wrote a 1.5 MB file keeps
 * that call's arguments, its approval preview and the transcript): such a value is written to a
 * JetStream object store (chunked by JetStream, digest kept) and the key holds a marker naming it,
 * written after the object, so a reader never sees a marker without its object. Each write of a
 * key uses a new object; the one it replaced is deleted afterwards. Small values are untouched.
 */
export function spillingKv(kv: KV, objects: () => Promise<ObjectStore>, options: SpillingKvOptions): SessionKv {
  const current = new Map<string, string>();

  const encode = async (key: string, data: Uint8Array): Promise<{ value: Uint8Array; object?: string }> => {
    if (data.length <= options.limitBytes) return { value: data };
    const object = `${key}.${randomUUID()}`;
    await (await objects()).putBlob({ name: object }, data);
    return { value: encodeJson({ $spilled: { object, size: data.length, sha256: sha256(data) } }), object };
  };

  const settle = (key: string, object: string | undefined) => {
    const previous = current.get(key);
    if (object === undefined) current.delete(key);
    else current.set(key, object);
    if (previous !== undefined && previous !== object) {
      void objects()
        .then((store) => store.delete(previous))
        .catch((error: unknown) => options.logger.warn({ err: error, object: previous }, "could not delete a replaced session object"));
    }
  };

  const decode = async (key: string, entry: KvEntry): Promise<KvEntry> => {
    if (entry.operation !== "PUT" || entry.value.length > 4096 || entry.value[0] !== 0x7b) return entry;
    let marker: z.infer<typeof MarkerSchema> | undefined;
    try {
      const parsed = MarkerSchema.safeParse(decodeJson(entry.value));
      marker = parsed.success ? parsed.data : undefined;
    } catch {
      marker = undefined;
    }
    if (marker === undefined) return entry;
    const { object, size, sha256: digest } = marker.$spilled;
    const data = await (await objects()).getBlob(object);
    if (data === null) throw new Error(`session value ${key} names object ${object}, which is missing`);
    if (data.length !== size || sha256(data) !== digest) throw new Error(`session value ${key}: object ${object} does not match its size and sha256`);
    current.set(key, object);
    return {
      bucket: entry.bucket,
      key: entry.key,
      value: data,
      created: entry.created,
      revision: entry.revision,
      ...(entry.delta === undefined ? {} : { delta: entry.delta }),
      operation: entry.operation,
      length: data.length,
      json: <T>() => decodeJson(data) as T,
      string: () => new TextDecoder().decode(data),
    };
  };

  return {
    async get(key, options) {
      const entry = await kv.get(key, options);
      return entry === null ? null : decode(key, entry);
    },
    async put(key, data, putOptions) {
      const { value, object } = await encode(key, data as Uint8Array);
      const revision = await kv.put(key, value, putOptions);
      settle(key, object);
      return revision;
    },
    async update(key, data, version) {
      const { value, object } = await encode(key, data as Uint8Array);
      try {
        const revision = await kv.update(key, value, version);
        settle(key, object);
        return revision;
      } catch (error) {
        // Lost the race: the object written for it is nobody's.
        if (object !== undefined)
          void objects()
            .then((store) => store.delete(object))
            .catch(() => undefined);
        throw error;
      }
    },
    keys: (filter) => kv.keys(filter),
    // Values come as stored (a spilled one as its marker): the store watches headers only.
    watch: (watchOptions) => kv.watch(watchOptions),
    async delete(key, deleteOptions) {
      await kv.delete(key, deleteOptions);
      settle(key, undefined);
    },
  };
}
