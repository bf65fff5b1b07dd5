/** An flock(2) on a file that the kernel frees when this process dies, however it dies. */
import { spawn, type ChildProcess } from "node:child_process";
import { lstatSync, readFileSync } from "node:fs";
import { AideError, aideError } from "@aide/contracts";
import { helperExitedReason, hostLockHelper, type HostLockHelper } from "./host-lock-helper.js";

/** A lock this process holds until `release` (or its death: the kernel then frees it). */
export interface HostFileLock {
  /**
   * This host's boot and the locked file (`<boot id>:<device>:<inode>`). Whoever else holds a
   * lock with the same identity holds it on the same file of the same running kernel.
   */
  identity: string;
  /** Fires when the lock was dropped while held (its helper exited): whatever runs under it must stop. */
  lost?: AbortSignal;
  release(): Promise<void>;
}

let cachedBootId: string | null | undefined;

/** The running kernel's boot id (a fresh random value at every boot), or null off Linux. */
export function hostBootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

/**
 * The helper that holds the flock: a shell with the lock file open on descriptor 9. `lock` runs
 * util-linux `flock` on that descriptor (the lock belongs to the open file, so it outlives the
 * short `flock` child and stays with the shell); `unlock` closes and reopens the descriptor, a
 * builtin. When this process dies (even by SIGKILL) the kernel closes the shell's stdin, `read`
 * ends, the shell exits and the kernel frees the lock — no lease, no pid that a namespace or a
 * reuse could make lie.
 */
const helperScript = `exec 9>>"$1" || { echo failed; exit 1; }
command -v flock >/dev/null 2>&1 || { echo missing; exit 0; }
echo "ready $(stat -L -c %d:%i /dev/fd/9 2>/dev/null)"
while read -r command; do
  case "$command" in
    lock) if flock -x 9; then echo locked; else echo failed; fi ;;
    unlock) exec 9>&-; exec 9>>"$1"; echo unlocked ;;
    *) exit 1 ;;
  esac
done`;

/** A helper left idle this long is ended (the next lock starts another). */
const idleHelperMs = 30_000;

interface Helper {
  child: ChildProcess;
  /** Resolves with the next line the helper prints ("" once it has exited). */
  nextLine(): Promise<string>;
  exited: Promise<void>;
  alive: boolean;
  /** A `lock` was written with the start, its answer not read yet. */
  lockAsked?: boolean;
  /** Device and inode of the file the helper holds open, once it is ready. */
  fileKey?: string;
}

const fileKey = (stats: { dev: number; ino: number }) => `${stats.dev}:${stats.ino}`;

const isHelperExit = (error: unknown) => error instanceof AideError && error.details?.["reason"] === helperExitedReason;

function startHelper(path: string): Helper {
  // Its own process group, so an abandoned wait can end the shell and its waiting `flock` together.
  const child = spawn("sh", ["-c", helperScript, "sh", path], { stdio: ["pipe", "pipe", "ignore"], detached: true });
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffered = "";
  const pipe = child.stdout as unknown as { ref?: () => void; unref?: () => void };
  const helper: Helper = {
    child,
    alive: true,
    exited: new Promise<void>((resolve) => child.once("close", () => resolve())),
    nextLine: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (!helper.alive) return Promise.resolve("");
      // Waiting for an answer keeps this process up (idle, the pipe does not).
      pipe.ref?.();
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
  const deliver = (line: string) => {
    const waiter = waiting.shift();
    if (waiting.length === 0) pipe.unref?.();
    if (waiter) waiter(line);
    else lines.push(line);
  };
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      deliver(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
    }
  });
  const gone = () => {
    helper.alive = false;
    for (const waiter of waiting.splice(0)) waiter("");
  };
  child.once("error", gone);
  child.once("close", gone);
  // A helper gone early makes our end of its pipe fail: never an uncaught error that ends the service.
  child.stdin!.on("error", () => undefined);
  // An idle helper never keeps the service from exiting.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  pipe.unref?.();
  return helper;
}

/** A lock asked of the shared helper is tried again this many times when the helper exits meanwhile. */
const sharedHelperAttempts = 3;

/**
 * The kernel lock on one file. Taken through the process's one lock helper (host-lock-helper.ts:
 * a descriptor per lock, no process started per workspace or per lock); where that helper cannot
 * run (no perl), through a shell of its own for this file (started on first use, ended after a
 * while idle; one short `flock` child per lock).
 */
export class HostFileLocker {
  private helper: Helper | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  /** `shared`: the helper to lock through (null: this file's own shell only). */
  constructor(
    private readonly path: string,
    private readonly shared: HostLockHelper | null = hostLockHelper,
  ) {}

  /** The pid of the helper that holds this file's locks while one runs (the shared one, or this locker's shell). */
  get helperPid(): number | undefined {
    if (this.helper?.alive) return this.helper.child.pid;
    return this.shared !== null && !this.shared.missing ? this.shared.pid : undefined;
  }

  /**
   * Waits for the exclusive lock and holds it until `release`. Resolves undefined off Linux or
   * when the `flock` program is missing (the caller falls back to its lease). One hold at a time
   * per locker (the workspace queue sees to that).
   */
  async hold(signal: AbortSignal): Promise<HostFileLock | undefined> {
    const bootId = hostBootId();
    if (bootId === null) return undefined;
    if (this.shared !== null && !this.shared.missing) {
      const held = await this.holdShared(this.shared, bootId, signal);
      if (held !== undefined) return held;
    }
    return this.holdWithShell(bootId, signal);
  }

  /** Through the shared helper; undefined when it cannot run here (the shell's way is used then). */
  private async holdShared(shared: HostLockHelper, bootId: string, signal: AbortSignal): Promise<HostFileLock | undefined> {
    for (let attempt = 0, replaced = 0; ; ) {
      const existing = lstatSync(this.path, { throwIfNoEntry: false });
      if (existing && !existing.isFile()) throw aideError("CHECKPOINT_FAILED", { detail: `the lock file ${this.path} is not a regular file` });
      let lock;
      try {
        lock = await shared.lock(this.path, signal);
      } catch (error) {
        // The helper exited while we waited: a new one is started (the kernel dropped nothing of ours).
        if (signal.aborted || attempt + 1 >= sharedHelperAttempts || !isHelperExit(error)) throw error;
        attempt++;
        continue;
      }
      if (lock === undefined) return undefined;
      // The lock is on the file the helper opened; another process locks whatever the path names now.
      const now = lstatSync(this.path, { throwIfNoEntry: false });
      if (now !== undefined && fileKey(now) === lock.fileKey) return { identity: `${bootId}:${lock.fileKey}`, lost: lock.lost, release: lock.release };
      await lock.release();
      if (++replaced > 3) throw aideError("CHECKPOINT_FAILED", { detail: `the lock file ${this.path} keeps being replaced` });
    }
  }

  /** Through this file's own shell helper. */
  private async holdWithShell(bootId: string, signal: AbortSignal): Promise<HostFileLock | undefined> {
    clearTimeout(this.idleTimer);
    for (let attempt = 0; ; attempt++) {
      // Synchronous stats (a few microseconds): each await here would wait out another
      // workspace's scan slice.
      const existing = lstatSync(this.path, { throwIfNoEntry: false });
      if (existing && !existing.isFile()) throw aideError("CHECKPOINT_FAILED", { detail: `the lock file ${this.path} is not a regular file` });
      if (signal.aborted) throw signal.reason ?? aideError("ABORTED");
      // The helper's open file must be the one at the path now (the shadow repository may have
      // been deleted and made again): another process locks whatever file the path names.
      if (this.helper?.alive && (existing === undefined || fileKey(existing) !== this.helper.fileKey)) this.end(this.helper);
      // An abandoned wait ends the helper (and its waiting `flock`): a lock asked for is never taken later.
      const onAbort = () => {
        if (this.helper) this.end(this.helper, "SIGKILL");
      };
      signal.addEventListener("abort", onAbort, { once: true });
      let helper: Helper;
      let answer: string;
      try {
        if (this.helper === undefined || !this.helper.alive) {
          const started = startHelper(this.path);
          this.helper = started;
          // Asked at once: the shell reads it after it said ready, so both answers come together.
          started.child.stdin!.write("lock\n");
          started.lockAsked = true;
          const first = await started.nextLine();
          if (!first.startsWith("ready")) {
            if (this.helper === started) this.helper = undefined;
            if (signal.aborted) throw signal.reason ?? aideError("ABORTED");
            // No shell (the spawn failed) or no `flock`: the caller relies on its lease alone.
            if (first === "missing" || started.child.pid === undefined) return undefined;
            throw aideError("CHECKPOINT_FAILED", { detail: `the lock helper for ${this.path} did not start (${first || "it exited"})` });
          }
          // The helper names the file it opened (its own /dev/fd, right in any PID namespace);
          // without coreutils `stat`, the file at the path just after it started stands in.
          const reported = /^ready (\d+:\d+)$/.exec(first)?.[1];
          const atPath = reported === undefined ? lstatSync(this.path, { throwIfNoEntry: false }) : undefined;
          started.fileKey = reported ?? (atPath === undefined ? undefined : fileKey(atPath));
        }
        // Abandoned while the helper started: onAbort ended it (this.helper is gone with it).
        if (signal.aborted || this.helper === undefined) {
          onAbort();
          throw signal.reason ?? aideError("ABORTED");
        }
        helper = this.helper;
        if (!helper.lockAsked) helper.child.stdin!.write("lock\n");
        helper.lockAsked = false;
        answer = await helper.nextLine();
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
      if (signal.aborted) throw signal.reason ?? aideError("ABORTED");
      if (answer !== "locked") {
        this.end(helper, "SIGKILL");
        throw aideError("CHECKPOINT_FAILED", { detail: `flock ${this.path} failed (${answer || "the helper exited"})` });
      }
      const now = lstatSync(this.path, { throwIfNoEntry: false });
      if (now !== undefined && helper.fileKey !== undefined && fileKey(now) === helper.fileKey) return this.held(helper, `${bootId}:${helper.fileKey}`);
      // The file was replaced while we waited: drop this lock and take the one at the path.
      this.end(helper, "SIGKILL");
      await helper.exited;
      if (attempt >= 3) throw aideError("CHECKPOINT_FAILED", { detail: `the lock file ${this.path} keeps being replaced` });
    }
  }

  private held(helper: Helper, identity: string): HostFileLock {
    return {
      identity,
      release: async () => {
        if (!helper.alive) return;
        helper.child.stdin!.write("unlock\n");
        const released = await helper.nextLine();
        // A helper that did not answer is ended: its exit frees the lock.
        if (released !== "unlocked") {
          this.end(helper, "SIGKILL");
          await helper.exited;
          return;
        }
        this.idleTimer = setTimeout(() => this.end(helper), idleHelperMs);
        this.idleTimer.unref();
      },
    };
  }

  /** Ends the helper (the lock, if held, is freed with it). */
  close(): void {
    clearTimeout(this.idleTimer);
    if (this.helper) this.end(this.helper);
  }

  private end(helper: Helper, signal?: NodeJS.Signals): void {
    if (this.helper === helper) this.helper = undefined;
    if (!helper.alive) return;
    if (signal === undefined) {
      helper.child.stdin!.end();
      return;
    }
    try {
      process.kill(-(helper.child.pid as number), signal);
    } catch {
      // already gone
    }
  }
}
