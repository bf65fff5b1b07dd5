import type { CgroupLimits, CommandCgroup } from "@aide/runtime";
import type { RunningCommand, SandboxRunOptions, SandboxRunResult } from "./sandbox.js";
import { spawnSandboxed, type SpawnedCommand } from "./spawn-sandboxed.js";
import type { WarmShells } from "./warm-shells.js";

/**
 * Starts one wrapped command: it first joins its own cgroups (a tiny sh that execs the sandbox, so
 * nothing it forks escapes the limits), then runs with the deadline and abort wired to a
 * process-group kill. `finished` resolves after the group is dead and the cgroups are emptied.
 * With `warm`, a foreground command takes a shell that already joined fresh groups (warm-shells.ts);
 * `limitSteps` (ulimit builtins) are run by that shell before it execs the sandbox.
 */
export async function startCommand(
  wrapped: { file: string; args: string[]; env: Record<string, string> },
  options: SandboxRunOptions,
  cgroups: CgroupLimits,
  name: string,
  shell: { warm?: WarmShells; limitSteps?: string } = {},
): Promise<RunningCommand> {
  const half = halfOutputBytes(options);
  const ready = shell.warm !== undefined ? await shell.warm.take() : undefined;
  let spawned: SpawnedCommand;
  let cgroup: CommandCgroup | null;
  if (ready !== undefined) {
    cgroup = ready.cgroup;
    spawned = ready.run([wrapped.file, ...wrapped.args], wrapped.env, options.cwd, half);
  } else {
    cgroup = await cgroups.create(name);
    const spawnOptions = { env: wrapped.env, cwd: options.cwd, halfOutputBytes: half };
    const steps = [...(shell.limitSteps !== undefined ? [shell.limitSteps] : []), ...(cgroup?.procsFiles ?? []).map((f) => `echo $$ > '${f}'`)];
    spawned =
      steps.length === 0
        ? spawnSandboxed(wrapped.file, wrapped.args, spawnOptions)
        : spawnSandboxed("/bin/sh", ["-c", `${steps.join(" && ")} && exec "$@"`, "sh", wrapped.file, ...wrapped.args], spawnOptions);
  }
  return superviseCommand(spawned, cgroup, options);
}

/** Head and tail kept per stream. */
export function halfOutputBytes(options: SandboxRunOptions): number {
  return Math.floor((options.maxOutputBytes ?? 24_000) / 2);
}

/** The deadline and abort wired to a process-group kill; `finished` once the group is dead and its cgroups emptied. */
export function superviseCommand(spawned: SpawnedCommand, cgroup: CommandCgroup | null, options: SandboxRunOptions): RunningCommand {
  const started = performance.now();
  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    spawned.kill();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    spawned.kill();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  const finished = spawned.exited.then(async ({ exitCode, signal, lost }): Promise<SandboxRunResult> => {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    spawned.kill();
    await cgroup?.release();
    return {
      exitCode,
      signal,
      timedOut,
      aborted,
      stdout: spawned.output.text(),
      stderr: "",
      truncated: spawned.output.truncated,
      durationMs: Math.round(performance.now() - started),
      totalLines: spawned.output.totalLines,
      ...(lost !== undefined ? { interrupted: lost } : {}),
    };
  });
  return { output: spawned.output, finished, cancel: onAbort };
}
