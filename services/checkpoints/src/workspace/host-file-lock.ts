/** An flock(2) on a file that the kernel frees when this process dies, however it dies. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { aideError } from "@aide/contracts";

/** A lock this process holds until `release` (or its death: the kernel then frees it). */
export interface HostFileLock {
  /**
   * This host's boot and the locked file (`<boot id>:<device>:<inode>`). Whoever else holds a
   * lock with the same identity holds it on the same file of the same running kernel.
   */
  identity: string;
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
 * Waits for an exclusive flock on `path` and holds it. Node has no flock of its own, so util-linux
 * `flock` holds it for us, with a child that reads our end of a pipe: when this process dies (even
 * by SIGKILL) the kernel closes the pipe, the child sees end of file and exits, and the lock is
 * freed — no lease, no pid that a namespace or a reuse could make lie. Resolves undefined when the
 * `flock` program is missing (the caller falls back to its lease).
 */
export async function holdHostFileLock(path: string, signal: AbortSignal): Promise<HostFileLock | undefined> {
  const bootId = hostBootId();
  if (bootId === null) return undefined;
  const existing = await lstat(path).catch(() => undefined);
  if (existing && !existing.isFile()) throw aideError("CHECKPOINT_FAILED", { detail: `the lock file ${path} is not a regular file` });
  if (signal.aborted) throw signal.reason ?? aideError("ABORTED");
  const child = spawn("flock", ["--exclusive", path, "sh", "-c", "echo locked; exec cat >/dev/null"], { stdio: ["pipe", "pipe", "ignore"] });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  // A child gone early makes our end of its pipe fail: never an uncaught error that ends the service.
  child.stdin.on("error", () => undefined);
  const locked = await new Promise<boolean>((resolve, reject) => {
    let output = "";
    const onAbort = () => {
      child.kill("SIGKILL");
      reject(signal.reason ?? aideError("ABORTED"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("locked")) {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      }
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      signal.removeEventListener("abort", onAbort);
      if (error.code === "ENOENT") resolve(false);
      else reject(error);
    });
    child.once("exit", (code) => {
      signal.removeEventListener("abort", onAbort);
      if (!output.includes("locked")) reject(aideError("CHECKPOINT_FAILED", { detail: `flock ${path} exited with ${code}` }));
    });
  });
  if (!locked) return undefined;
  const stats = await lstat(path);
  return {
    identity: `${bootId}:${stats.dev}:${stats.ino}`,
    async release() {
      child.stdin.end();
      await exited;
    },
  };
}
