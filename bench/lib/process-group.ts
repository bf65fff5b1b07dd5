/**
 * One child process in a process group of its own, reaped: it is killed with its whole group
 * (SIGTERM, then SIGKILL after a grace period) when its time runs out or the caller's signal
 * aborts, and the promise settles only once the child has exited, so nothing it started outlives
 * the attempt. Its output goes to a log file (and the last bytes are kept for the caller).
 */
import { spawn } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";

export interface GroupRunOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Killed with its group after this long; absent, no limit but the signal. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Both output streams are appended here. */
  logFile?: string;
  /** How long the group has between SIGTERM and SIGKILL. */
  graceMs?: number;
}

export interface GroupRunResult {
  code: number | null;
  /** The signal that ended the child, when one did. */
  killedBy: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  wallMs: number;
  /** The last 8,000 characters of the output. */
  tail: string;
  /** Why the child could not start. */
  startError?: string;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}

export function runProcessGroup(file: string, args: string[], options: GroupRunOptions): Promise<GroupRunResult> {
  const started = performance.now();
  const log = options.logFile !== undefined ? openSync(options.logFile, "a") : undefined;
  return new Promise<GroupRunResult>((resolve) => {
    let tail = "";
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-8000);
      if (log !== undefined) writeSync(log, chunk);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const stop = () => {
      killGroup(child.pid, "SIGTERM");
      killTimer ??= setTimeout(() => killGroup(child.pid, "SIGKILL"), options.graceMs ?? 5000);
    };
    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeoutMs)
        : undefined;
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    let settled = false;
    const finish = (result: Omit<GroupRunResult, "timedOut" | "aborted" | "wallMs" | "tail">) => {
      // A child that cannot start reports 'error' and may report 'close' after it.
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      // Whatever the child left running in its group goes with it.
      killGroup(child.pid, "SIGKILL");
      if (log !== undefined) closeSync(log);
      resolve({ ...result, timedOut, aborted, wallMs: Math.round(performance.now() - started), tail });
    };
    child.on("error", (error) => finish({ code: null, killedBy: null, startError: error.message }));
    child.on("close", (code, signal) => finish({ code, killedBy: signal }));
  });
}
