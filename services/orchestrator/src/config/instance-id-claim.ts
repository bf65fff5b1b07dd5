import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { StorageType, type KV, type NatsConnection } from "nats";
import type { Logger } from "pino";
import { z } from "zod";
import { aideError } from "@aide/contracts";
import { decodeJson, encodeJson, orchestratorIdBucketName } from "@aide/runtime";

const SlotSchema = z.object({ pid: z.number().int(), host: z.string(), until: z.number(), token: z.string().optional() });

export interface InstanceIdClaim {
  id: string;
  /** Stops renewing and frees the id, so a restarted instance gets it back and resumes its runs at once. */
  release(): Promise<void>;
}

export interface ClaimInstanceIdOptions {
  connection: NatsConnection;
  logger: Logger;
  /** How long a slot stays taken without renewal: the run lease, so a crashed instance's id and its runs free up together. */
  leaseMs: number;
  host?: string;
  now?: () => number;
  /** Called when another instance took the id over (this one was cut off past its lease): the process must stop. */
  onLost: (id: string) => void;
}

const maxSlots = 64;

function safeHost(raw: string): string {
  return raw.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 48) || "host";
}

/**
 * The default orchestrator id: `orchestrator-<host>-<n>` with the lowest slot `n` no live instance
 * holds, claimed on the bus (a JetStream KV create or a revision-checked update of an expired slot),
 * so two instances on one host — or on two hosts with the same name — never share an id, and a
 * crashed instance's id is not reused before its runs' leases run out.
 */
export async function claimInstanceId(options: ClaimInstanceIdOptions): Promise<InstanceIdClaim> {
  const now = options.now ?? Date.now;
  const host = safeHost(options.host ?? hostname());
  const kv = await options.connection.jetstream().views.kv(orchestratorIdBucketName, { history: 1, storage: StorageType.File });
  const token = randomBytes(8).toString("hex");
  const value = () => encodeJson({ pid: process.pid, host, token, until: now() + options.leaseMs });
  for (let slot = 0; slot < maxSlots; slot += 1) {
    const key = `${host}-${slot}`;
    const revision = await takeSlot(kv, key, value, now);
    if (revision === undefined) continue;
    return holdSlot(kv, key, `orchestrator-${key}`, revision, value, token, options);
  }
  throw aideError("CONFIG_INVALID", { detail: `all ${maxSlots} orchestrator ids of host ${host} are held by live instances; set AIDE_ORCHESTRATOR_ID` });
}

async function takeSlot(kv: KV, key: string, value: () => Uint8Array, now: () => number): Promise<number | undefined> {
  try {
    return await kv.create(key, value());
  } catch {
    // Exists (or a racing create won): take it only when its holder stopped renewing.
  }
  const entry = await kv.get(key);
  if (!entry) return undefined;
  if (entry.operation === "PUT" && entry.value.length > 0) {
    const parsed = SlotSchema.safeParse(safeDecode(entry.value));
    if (parsed.success && parsed.data.until > now()) return undefined;
  }
  try {
    return await kv.update(key, value(), entry.revision);
  } catch {
    return undefined;
  }
}

function safeDecode(data: Uint8Array): unknown {
  try {
    return decodeJson(data);
  } catch {
    return undefined;
  }
}

function holdSlot(kv: KV, key: string, id: string, firstRevision: number, value: () => Uint8Array, token: string, options: ClaimInstanceIdOptions): InstanceIdClaim {
  let revision = firstRevision;
  let released = false;
  let renewing: Promise<void> | undefined;
  const renewOnce = async () => {
    try {
      revision = await kv.update(key, value(), revision);
    } catch (error) {
      if (released) return;
      const entry = await kv.get(key).catch(() => undefined);
      if (entry === undefined || entry === null) {
        options.logger.warn({ err: error, id }, "could not renew the orchestrator id; retrying");
        return;
      }
      const holder = SlotSchema.safeParse(safeDecode(entry.value));
      // A write that timed out may still have landed: the slot is ours while it names our token.
      if (entry.operation === "PUT" && holder.success && holder.data.token === token) {
        revision = entry.revision;
        return;
      }
      released = true;
      clearInterval(timer);
      options.logger.error({ id }, "another instance took this orchestrator id over; stopping");
      options.onLost(id);
    }
  };
  const timer = setInterval(
    () => {
      // One renewal at a time: two in flight with the same revision would fail each other.
      if (renewing || released) return;
      renewing = renewOnce().finally(() => {
        renewing = undefined;
      });
    },
    Math.max(250, Math.floor(options.leaseMs / 3)),
  );
  timer.unref();
  return {
    id,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await renewing;
      await kv.delete(key, { previousSeq: revision }).catch(() => undefined);
    },
  };
}
