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
  private hostLocker: HostFileLocker | undefined;

  constructor(private readonly lockPath: string, options: WorkspaceLockOptions = {}) {
    this.crossHost = options.crossHost;
    this.prepare = options.prepare ?? (async () => { await mkdir(dirname(lockPath), { recursive: true }); });
    this.isAlive = options.isAlive ?? defaultIsAlive;
    this.staleAfterMs = options.staleAfterMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
  }

  private runs = 0;

  /** Work is running or waiting on this workspace (background chores wait for a quiet moment). */
  get busy(): boolean {
    return this.runs > 0;
  }

  /** Runs `work` alone; waiting ends early with the signal's reason. */
  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    this.runs++;
    try {
      return await this.runAlone(signal, work);
    } finally {
      this.runs--;
    }
  }

  private async runAlone<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tail = previous.then(() => mine);
    try {
      await abortable(previous, signal);
      if (this.crossHost) {
        await this.prepare();
        // This host's processes first take a kernel lock that dies with its holder; holding it,
        // a KV entry written under the same kernel lock is known to be a dead holder's.
        this.hostLocker ??= new HostFileLocker(`${this.lockPath}.flock`);
        const hostLock = await this.hostLocker.hold(signal);
        try {
          const releaseShared = await this.crossHost.lock.acquire(this.crossHost.workspace, signal, hostLock?.identity);
          try {
            return await work();
          } finally {
            // The KV entry goes before the kernel lock: whoever gets the kernel lock next sees it gone.
            await releaseShared();
          }
        } finally {
          await hostLock?.release();
        }
      }
      await this.acquireFile(signal);
      try {
        return await work();
      } finally {
        await rm(this.lockPath, { force: true });
      }
    } finally {
      release();
    }
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
      (value) => { signal.removeEventListener("abort", onAbort); resolve(value); },
      (error) => { signal.removeEventListener("abort", onAbort); reject(error); },
    );
  });
}
