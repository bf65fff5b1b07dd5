import { execa } from "execa";
import type { LaunchedShell, ShellExit, SpawnHelper } from "./spawn-helper.js";

/** Starts `/bin/sh args` for a shell or jail made ahead (empty environment, cwd `/`, its own process group). */
export type ShellLauncher = (args: readonly string[]) => Promise<LaunchedShell>;

/** Spawned by the service itself: its event loop waits until the shell has exec'd. */
export function launchDirectly(args: readonly string[]): LaunchedShell {
  const child = execa("/bin/sh", args, {
    env: {},
    extendEnv: false,
    cwd: "/",
    stdin: "pipe",
    buffer: false,
    reject: false,
    detached: true,
    cleanup: true,
    stripFinalNewline: false,
    windowsHide: true,
  });
  const exited = child.then(
    (result): ShellExit => ({ exitCode: result.exitCode ?? null, signal: result.signal ?? null }),
    (error: { exitCode?: number; signal?: string }): ShellExit => ({ exitCode: error.exitCode ?? null, signal: error.signal ?? null }),
  );
  return { pid: child.pid, stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, exited };
}

/** Through the spawn helper when there is one that can; otherwise (and whenever it cannot) directly. */
export function shellLauncher(helper: SpawnHelper | undefined): ShellLauncher {
  return async (args) => (await helper?.spawnShell(args)) ?? launchDirectly(args);
}
