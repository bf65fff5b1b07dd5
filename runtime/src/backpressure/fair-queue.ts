import { aideError } from "@aide/contracts";

export interface FairQueueOptions {
  /** Holders at once. */
  concurrency: number;
  /** Waiting entries at most, over every key; past it `acquire` is refused BUSY. */
  maxQueued: number;
  /**
   * Waiting entries at most for one key (a session), so one burst cannot fill the whole queue.
   * The key "" (requests of no session: a new session's start, a catalog) is bounded by `maxQueued` only.
   */
  maxQueuedPerKey: number;
  /** How long an entry may wait before it is refused BUSY (the requester retries with backoff); 0: no bound. */
  maxWaitMs?: number;
  /** What is queued, for the BUSY detail and `details.queue` ("requests", "commands"). */
  what: string;
}

export interface FairQueue {
  /**
   * Takes a slot now, or waits for one: waiting keys are served round-robin (one entry of each key
   * in turn), FIFO within a key. Throws BUSY (with `details.retry_after_ms`) when the key's or the
   * whole queue is full or the wait passed `maxWaitMs`; ABORTED when the signal fires first.
   * Returns the release function (call it once).
   */
  acquire(key: string, signal?: AbortSignal): Promise<() => void>;
  active(): number;
  waiting(): number;
}

interface Entry {
  grant(): void;
}

/** A BUSY hint that grows with the backlog: about one slot's turn per queued round, 50 ms to 5 s. */
export function retryAfterMs(waiting: number, concurrency: number): number {
  return Math.min(5_000, 50 * (1 + Math.ceil(waiting / Math.max(1, concurrency))));
}

/**
 * A bounded admission queue that is fair across keys: a session with a hundred waiting requests
 * and a session with one take turns for the next free slot, so the single request is served
 * after at most one of the burst's.
 */
export function createFairQueue(options: FairQueueOptions): FairQueue {
  let active = 0;
  let waiting = 0;
  const queues = new Map<string, Entry[]>();
  /** Keys with waiting entries, in the order they take turns; `cursor` is whose turn is next. */
  const ring: string[] = [];
  let cursor = 0;

  const busy = (detail: string) => aideError("BUSY", { detail }, { retry_after_ms: retryAfterMs(waiting, options.concurrency), queue: options.what });

  const remove = (key: string, entry: Entry): boolean => {
    const queue = queues.get(key);
    const index = queue?.indexOf(entry) ?? -1;
    if (queue === undefined || index === -1) return false;
    queue.splice(index, 1);
    waiting -= 1;
    if (queue.length === 0) dropKey(key);
    return true;
  };

  const dropKey = (key: string) => {
    queues.delete(key);
    const at = ring.indexOf(key);
    if (at === -1) return;
    ring.splice(at, 1);
    if (at < cursor) cursor -= 1;
    if (cursor >= ring.length) cursor = 0;
  };

  const release = () => {
    active -= 1;
    if (ring.length === 0) return;
    const key = ring[cursor] as string;
    const queue = queues.get(key) as Entry[];
    const entry = queue.shift() as Entry;
    waiting -= 1;
    if (queue.length === 0) dropKey(key);
    else cursor = (cursor + 1) % ring.length;
    active += 1;
    entry.grant();
  };

  const releaseOnce = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };

  return {
    active: () => active,
    waiting: () => waiting,
    acquire(key, signal) {
      if (signal?.aborted) return Promise.reject(aideError("ABORTED"));
      if (active < options.concurrency && waiting === 0) {
        active += 1;
        return Promise.resolve(releaseOnce());
      }
      const own = queues.get(key)?.length ?? 0;
      if (key !== "" && own >= options.maxQueuedPerKey) {
        return Promise.reject(busy(`${own} ${options.what} of this session waiting (at most ${options.maxQueuedPerKey}), ${active} in progress`));
      }
      if (waiting >= options.maxQueued) return Promise.reject(busy(`${active} ${options.what} in progress and ${waiting} waiting`));
      return new Promise<() => void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const cleanup = () => {
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        };
        const entry: Entry = {
          grant: () => {
            cleanup();
            resolve(releaseOnce());
          },
        };
        const onAbort = () => {
          if (remove(key, entry)) {
            cleanup();
            reject(aideError("ABORTED"));
          }
        };
        if (options.maxWaitMs !== undefined && options.maxWaitMs > 0) {
          timer = setTimeout(() => {
            if (remove(key, entry)) {
              cleanup();
              reject(busy(`waited ${options.maxWaitMs} ms behind ${active} ${options.what} in progress`));
            }
          }, options.maxWaitMs);
          timer.unref();
        }
        signal?.addEventListener("abort", onAbort, { once: true });
        const queue = queues.get(key);
        if (queue === undefined) {
          queues.set(key, [entry]);
          // A key that had nothing waiting is served next, not behind every key with a backlog.
          ring.splice(cursor, 0, key);
        } else queue.push(entry);
        waiting += 1;
      });
    },
  };
}
