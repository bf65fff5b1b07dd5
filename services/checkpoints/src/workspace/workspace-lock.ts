/** One operation at a time per workspace. */
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { aideError } from "@aide/contracts";
import { HostFileLocker } from "./host-file-lock.js";
import type { CrossHostLock } from "./kv-workspace-lock.js";

/** Identifies this process in lock files, so a lock left by an earlier process with a reused pid is seen as stale. */
const processToken = randomBytes(8).toString("hex");

export interface LockOwner {
  pid: number;
  token: string;
  since: number;
}

export interface WorkspaceLockOptions {
  /** Is a process with this pid alive? Injected for tests. */
  isAlive?: (pid: number) => boolean;
  /** A lock older than this is taken over even if its pid looks alive (pid reuse). */
  staleAfterMs?: number;
  now?: () => number;
  /** Makes the lock file's folder exist (checked, never through a symlink) before the lock is taken. */
  prepare?: () => Promise<void>;
  /**
   * The lock processes on every host agree on (JetStream KV), keyed by `workspace`. Given, it
   * replaces the lock file: a pid says nothing about a process on another host.
   */
  crossHost?: { lock: CrossHostLock; workspace: string };
  /**
   * Told when letting go of the lock failed after the work was answered (the lock file could not
   * be removed); the next run then waits as for any holder. The KV release logs its own failures.
   */
  onReleaseError?: (error: unknown) => void;
}

function defaultIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Serializes work on one workspace: a promise queue inside the process, and against other
 * processes either the cross-host KV lock (the service on a bus) or a lock file in the shadow
 * repository (one host only: a lock whose owner is dead, is an earlier process with our pid, or is
 * older than `staleAfterMs` is cleared).
 */
export class WorkspaceLock {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly isAlive: (pid: number) => boolean;
  private readonly staleAfterMs: number;
  private readonly now: () => number;
  private readonly prepare: () => Promise<void>;
  private readonly crossHost: WorkspaceLockOptions["crossHost"];
  private readonly onReleaseError: (error: unknown) => void;
  private hostLocker: HostFileLocker | undefined;

  constructor(
    private readonly lockPath: string,
    options: WorkspaceLockOptions = {},
  ) {
    this.crossHost = options.crossHost;
    this.prepare =
      options.prepare ??
      (async () => {
        await mkdir(dirname(lockPath), { recursive: true });
      });
    this.isAlive = options.isAlive ?? defaultIsAlive;
    this.staleAfterMs = options.staleAfterMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
    this.onReleaseError = options.onReleaseError ?? (() => undefined);
  }

  private runs = 0;

  /**
   * Where the current run's wait went, ms (read by the work when it starts, for its debug log):
   * the in-process queue, the lock file's folder check, the kernel lock, the cross-host entry.
   */
  waited: { queue: number; prepare: number; flock: number; kv: number } = { queue: 0, prepare: 0, flock: 0, kv: 0 };

  /** Work is running or waiting on this workspace (background chores wait for a quiet moment). */
  get busy(): boolean {
    return this.runs > 0;
  }

  /**
   * Runs `work` alone; waiting ends early with the signal's reason. Resolves (or rejects) as soon
   * as `work` has, so the reply need not wait for the release: the cross-process locks are let go
   * after, and until they are, this workspace stays `busy` and the next `run` in this process does
   * not start (it queues behind the release, as other processes wait on the locks themselves).
   * `work` is given `signal`, also fired when the kernel lock was dropped under it (its helper
   * exited): work that checks it stops rather than go on unlocked.
   */
  async run<T>(signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.runs++;
    const previous = this.tail;
    let settle!: () => void;
    const mine = new Promise<void>((resolve) => (settle = resolve));
    this.tail = previous.then(() => mine);
    const finished = () => {
      this.runs--;
      settle();
    };
    let releaseHeld: () => Promise<void>;
    let bounded = signal;
    const queued = performance.now();
    try {
      await abortable(previous, signal);
      this.waited = { queue: performance.now() - queued, prepare: 0, flock: 0, kv: 0 };
      const held = await this.acquireHeld(signal);
      releaseHeld = held.release;
      if (held.lost) bounded = AbortSignal.any([signal, held.lost]);
    } catch (error) {
      finished();
      throw error;
    }
    const releaseAfter = () => {
      void releaseHeld()
        .catch((error: unknown) => this.onReleaseError(error))
        .finally(finished);
    };
    try {
      const result = await work(bounded);
      releaseAfter();
      return result;
    } catch (error) {
      releaseAfter();
      throw error;
    }
  }

  /** Resolves once every run queued so far has finished and released what it held (before shutdown). */
  async settled(): Promise<void> {
    await this.tail;
  }

  /** Takes the locks other processes see; resolves with their release (KV entry, then kernel lock; or the lock file). */
  private async acquireHeld(signal: AbortSignal): Promise<{ release: () => Promise<void>; lost?: AbortSignal }> {
    if (this.crossHost) {
      let mark = performance.now();
      const lap = (phase: "prepare" | "flock" | "kv") => {
        const now = performance.now();
        this.waited[phase] = now - mark;
        mark = now;
      };
      await this.prepare();
      lap("prepare");
      // This host's processes first take a kernel lock that dies with its holder; holding it,
      // a KV entry written under the same kernel lock is known to be a dead holder's.
      this.hostLocker ??= new HostFileLocker(`${this.lockPath}.flock`);
      const hostLock = await this.hostLocker.hold(signal);
      lap("flock");
      let releaseShared: () => Promise<void>;
      try {
        releaseShared = await this.crossHost.lock.acquire(this.crossHost.workspace, signal, hostLock?.identity);
        lap("kv");
      } catch (error) {
        await hostLock?.release();
        throw error;
      }
      const release = async () => {
        try {
          // The KV entry goes before the kernel lock: whoever gets the kernel lock next sees it gone.
          await releaseShared();
        } finally {
          await hostLock?.release();
        }
      };
      return hostLock?.lost ? { release, lost: hostLock.lost } : { release };
    }
    await this.acquireFile(signal);
    return { release: () => rm(this.lockPath, { force: true }) };
  }

  private async acquireFile(signal: AbortSignal): Promise<void> {
    await this.prepare();
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) throw signal.reason;
      try {
        const handle = await open(this.lockPath, "wx");
        const owner: LockOwner = { pid: process.pid, token: processToken, since: this.now() };
        try {
          await handle.writeFile(JSON.stringify(owner));
        } catch (error) {
          // A full disk can create the file and refuse its bytes: no empty lock is left behind.
          await handle.close().catch(() => undefined);
          await rm(this.lockPath, { force: true });
          throw error;
        }
        await handle.close();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      if (await this.isStale()) {
        await rm(this.lockPath, { force: true });
        continue;
      }
      await sleep(Math.min(200, 10 * (attempt + 1)));
    }
  }

  private async isStale(): Promise<boolean> {
    let owner: Partial<LockOwner>;
    try {
      owner = JSON.parse(await readFile(this.lockPath, "utf8")) as Partial<LockOwner>;
    } catch (error) {
      // Unreadable or half-written: stale unless it was just created by a live writer.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      await sleep(50);
      try {
        JSON.parse(await readFile(this.lockPath, "utf8"));
        return false;
      } catch {
        return true;
      }
    }
    if (typeof owner.pid !== "number") return true;
    if (owner.pid === process.pid) return owner.token !== processToken;
    if (!this.isAlive(owner.pid)) return true;
    return typeof owner.since === "number" && this.now() - owner.since > this.staleAfterMs;
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? aideError("ABORTED"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
