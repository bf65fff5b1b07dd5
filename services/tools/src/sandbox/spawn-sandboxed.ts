import { execa } from "execa";
import { HeadTailBuffer } from "./head-tail-buffer.js";

export interface SpawnedCommand {
  pid: number | undefined;
  /** stdout and stderr interleaved as they arrive. */
  output: HeadTailBuffer;
  /** `lost`: the process that started it (the spawn helper) stopped under it, and it was killed then. */
  exited: Promise<{ exitCode: number | null; signal: string | null; lost?: string }>;
  /** SIGKILL to the whole process group (the sandbox and everything in it). Idempotent. */
  kill(): void;
}

/** Spawns in its own process group with stdin closed and nothing buffered beyond the head/tail caps. */
export function spawnSandboxed(file: string, args: readonly string[], options: { env: Record<string, string>; cwd: string; halfOutputBytes: number }): SpawnedCommand {
  const output = new HeadTailBuffer(options.halfOutputBytes);
  const child = execa(file, args, {
    env: options.env,
    extendEnv: false,
    cwd: options.cwd,
    stdin: "ignore",
    buffer: false,
    reject: false,
    detached: true,
    cleanup: true,
    stripFinalNewline: false,
    windowsHide: true,
  });
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
  const pid = child.pid;
  const kill = () => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // the group is already gone
    }
  };
  const exited = child.then(
    (result) => ({ exitCode: result.exitCode ?? null, signal: result.signal ?? null }),
    (error: { exitCode?: number; signal?: string }) => ({ exitCode: error.exitCode ?? null, signal: error.signal ?? null }),
  );
  return { pid, output, exited, kill };
}
