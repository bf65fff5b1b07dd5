/** The lock of a workspace across hosts: a JetStream KV lease, taken, renewed and released by revision. */
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { StorageType, type KV, type NatsConnection } from "nats";
import type { Logger } from "pino";
import { aideError } from "@aide/contracts";
import { encodeJson, workspaceLockBucketName } from "@aide/runtime";

/** A lock several processes — on several hosts — agree on. */
export interface CrossHostLock {
  /**
   * Resolves once this caller holds `workspace`, with the function that releases it; rejects with
   * the signal's reason. `hostLock`: the identity of a kernel lock on this host the caller holds
   * now and until it releases (see host-file-lock.ts); an entry written under the same identity
   * was written by a holder that is dead, and is taken over at once instead of after its lease.
   */
  acquire(workspace: string, signal: AbortSignal, hostLock?: string): Promise<() => Promise<void>>;
}

export interface KvWorkspaceLockOptions {
  kv: KV;
  logger: Logger;
  /** A holder renews every third of this; a lock not renewed for this long is taken over. */
  leaseMs: number;
  /** Who holds it, for the logs of whoever waits. */
  holder?: string;
  pollMs?: number;
  now?: () => number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The kernel lock a lock entry was written under, if any. */
function heldUnder(value: Uint8Array): string | undefined {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(value)) as { host_lock?: unknown };
    return typeof parsed.host_lock === "string" ? parsed.host_lock : undefined;
  } catch {
    return undefined;
  }
}

/** One key per workspace path (KV keys cannot hold `/`). */
export function lockKey(workspace: string): string {
  return `ws-${createHash("sha256").update(workspace).digest("hex").slice(0, 32)}`;
}

export async function openWorkspaceLockBucket(connection: NatsConnection): Promise<KV> {
  // No account check ($JS.API.INFO): this bus user may reach its lock bucket and nothing else.
  return connection.jetstream({ checkAPI: false }).views.kv(workspaceLockBucketName, { history: 1, storage: StorageType.File });
}

/**
 * The workspace lock as a JetStream KV entry: taken by a create (which fails while the key holds a
 * value), renewed by revision-checked updates, released by a revision-checked delete. A waiter
 * takes the lock over only after seeing the same revision for a whole lease by its own clock — the
 * holder stopped renewing (killed, cut off) — so clocks of different hosts never need to agree.
 */
export function kvWorkspaceLock(options: KvWorkspaceLockOptions): CrossHostLock {
  const { kv, logger } = options;
  const now = options.now ?? Date.now;
  const holder = options.holder ?? `${hostname()}:${process.pid}`;
  const pollMs = options.pollMs ?? 100;
  /** Per key, our last revision before a release that the bus confirmed. */
  const releasedRevisions = new Map<string, number>();
  const valueOf = (token: string, hostLock: string | undefined) => encodeJson({ holder, token, at: now(), ...(hostLock ? { host_lock: hostLock } : {}) });

  async function take(
    key: string,
    token: string,
    seen: { revision: number; since: number } | undefined,
    hostLock: string | undefined,
    started: number,
  ): Promise<{ revision?: number; seen?: { revision: number; since: number } }> {
    const value = (token: string) => valueOf(token, hostLock);
    try {
      return { revision: await kv.create(key, value(token)) };
    } catch {
      // Held (or deleted and raced); look at who holds it.
    }
    const entry = await kv.get(key);
    if (!entry) return {};
    if (entry.operation !== "PUT") {
      // Released (a delete marker): take it with the marker's revision, so of two takers one wins.
      try {
        return { revision: await kv.update(key, value(token), entry.revision) };
      } catch {
        return {};
      }
    }
    if (hostLock && heldUnder(entry.value) === hostLock) {
      // Its holder wrote it while holding the kernel lock we hold now: that holder is dead.
      try {
        const revision = await kv.update(key, value(token), entry.revision);
        logger.warn({ key, waited_ms: now() - started, previous: new TextDecoder().decode(entry.value).slice(0, 200) }, "took over a workspace lock whose holder on this host is dead");
        return { revision };
      } catch {
        return {};
      }
    }
    if (!seen || seen.revision !== entry.revision) return { seen: { revision: entry.revision, since: now() } };
    if (now() - seen.since < options.leaseMs) return { seen };
    try {
      const revision = await kv.update(key, value(token), entry.revision);
      logger.warn({ key, previous: new TextDecoder().decode(entry.value).slice(0, 200) }, "took over a workspace lock its holder stopped renewing");
      return { revision };
    } catch {
      return {};
    }
  }

  return {
    async acquire(workspace, signal, hostLock) {
      const value = (token: string) => valueOf(token, hostLock);
      const key = lockKey(workspace);
      const token = randomBytes(8).toString("hex");
      let seen: { revision: number; since: number } | undefined;
      let revision: number | undefined;
      const started = now();
      // Our own release was the key's last write when its marker directly follows our last
      // revision: then one revision-checked update takes it (instead of a create that fails on
      // the marker, a get and an update). Any other write since makes the check fail.
      const releasedAfter = releasedRevisions.get(key);
      releasedRevisions.delete(key);
      if (releasedAfter !== undefined && !signal.aborted) revision = await kv.update(key, value(token), releasedAfter + 1).catch(() => undefined);
      for (let attempt = 0; revision === undefined; attempt += 1) {
        if (signal.aborted) throw signal.reason ?? aideError("ABORTED");
        const result = await take(key, token, seen, hostLock, started).catch((error: Error) => {
          logger.warn({ err: error, key }, "workspace lock: the bus did not answer; retrying");
          return {} as { revision?: number; seen?: { revision: number; since: number } };
        });
        revision = result.revision;
        seen = result.seen ?? seen;
        if (revision === undefined) await sleep(Math.min(pollMs * (1 + attempt), 500));
      }
      let current = revision;
      let lost = false;
      let renewing: Promise<void> | undefined;
      const renewOnce = async () => {
        try {
          current = await kv.update(key, value(token), current);
        } catch (error) {
          // A write that timed out may still have landed: the entry is ours if it holds our token.
          const entry = await kv.get(key).catch(() => undefined);
          if (entry?.operation === "PUT" && new TextDecoder().decode(entry.value).includes(token)) {
            current = entry.revision;
            return;
          }
          lost = true;
          logger.error({ err: error, key }, "could not renew the workspace lock");
        }
      };
      const renew = setInterval(
        () => {
          // One renewal at a time: two in flight with the same revision would fail each other.
          if (renewing || lost) return;
          renewing = renewOnce().finally(() => {
            renewing = undefined;
          });
        },
        Math.max(100, Math.floor(options.leaseMs / 3)),
      );
      renew.unref();
      return async () => {
        clearInterval(renew);
        // A renewal in flight moves the revision: release with the newest one.
        await renewing;
        if (lost) return;
        const released = await kv.delete(key, { previousSeq: current }).then(
          () => true,
          (error: Error) => {
            logger.warn({ err: error, key }, "could not release the workspace lock; it expires after its lease");
            return false;
          },
        );
        if (released) releasedRevisions.set(key, current);
      };
    },
  };
}
