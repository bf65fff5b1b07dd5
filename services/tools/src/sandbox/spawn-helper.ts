import { fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import { SpawnReplySchema, type SpawnRequest } from "./spawn-helper-messages.js";

/** How a shell made ahead ended; `lost` when its spawn helper stopped under it (it was killed then). */
export interface ShellExit {
  exitCode: number | null;
  signal: string | null;
  lost?: string;
}

/** A `/bin/sh` started for the sandbox, with its three pipes. */
export interface LaunchedShell {
  pid: number | undefined;
  stdin: Writable | null;
  stdout: Readable | null;
  stderr: Readable | null;
  /** Once it has exited and both its output pipes are closed (all of its output was read). */
  exited: Promise<ShellExit>;
  /**
   * True once it is known to be gone or unreportable: it exited, or the helper that forked it
   * stopped (checked on the spot, before the service has handled the helper's exit), so a shell
   * whose end could no longer be reported is never handed a command.
   */
  gone?(): boolean;
}

export interface SpawnHelper {
  /**
   * `/bin/sh args`, empty environment, cwd `/`, a process group of its own, forked by the helper.
   * Undefined when the helper cannot start it (not running and not restartable, or the spawn
   * failed): the caller then spawns it itself. Never rejects.
   */
  spawnShell(args: readonly string[]): Promise<LaunchedShell | undefined>;
  /** The helper's pid while one runs. */
  pid(): number | undefined;
  /** Ends the helper (it kills what it still has) and waits until it is reaped. */
  close(): Promise<void>;
}

/** The compiled helper entry (tests that load the TypeScript source use dist/, as the edit worker's do). */
export const defaultSpawnHelperScript = fileURLToPath(new URL(import.meta.url.endsWith(".ts") ? "../../dist/sandbox/spawn-helper-process.js" : "./spawn-helper-process.js", import.meta.url));

interface Pending {
  resolve(shell: LaunchedShell | undefined): void;
  streams: Partial<Record<"stdin" | "stdout" | "stderr", Socket>>;
  pid?: number;
  settled: boolean;
  gone: boolean;
  resolveExit(exit: ShellExit): void;
}

/**
 * The tools service's spawn helper: a small long-lived Node process (spawn-helper-process.ts) that
 * forks the shells and jails made ahead and passes their pipes back over IPC. A fork of the
 * 175 MB service blocks its event loop until the child has exec'd (~1 ms quiet, ~70 ms under a run
 * queue of 20: bench/results/sessions-notes.md); the helper's fork is small and its wait is its own.
 *
 * The helper dies with the service: it exits when its channel closes, which the kernel does when
 * the service is killed. A helper that stops on its own is logged (SANDBOX_SPAWNER_LOST): what it
 * was still starting is given back as "not started" (the caller spawns it itself), what it had
 * started is killed with its process group and reported as lost, and the next spawn starts a new
 * helper, at most `maxRestarts` times a minute; past that the service spawns every shell itself.
 */
export function createSpawnHelper(options: { logger: Logger; script?: string; maxRestarts?: number }): SpawnHelper {
  const logger = options.logger;
  const script = options.script ?? defaultSpawnHelperScript;
  const maxRestarts = options.maxRestarts ?? 3;
  const losses: number[] = [];
  let helper: ChildProcess | undefined;
  let closing = false;
  let givenUp = false;
  let counter = 0;
  let starting = 0;
  const pending = new Map<number, Pending>();

  const killGroup = (pid: number | undefined) => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  };

  const lose = (entry: Pending, id: number, reason: string) => {
    pending.delete(id);
    entry.gone = true;
    killGroup(entry.pid);
    if (!entry.settled) {
      entry.settled = true;
      for (const stream of Object.values(entry.streams)) stream?.destroy();
      entry.resolve(undefined);
      return;
    }
    entry.resolveExit({ exitCode: null, signal: "SIGKILL", lost: reason });
  };

  // Alive and not yet reaped as a zombie (a helper that just died is one until its exit is handled).
  const running = (pid: number | undefined) => {
    if (pid === undefined) return false;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  };

  const onMessage = (raw: unknown, handle: unknown) => {
    const parsed = SpawnReplySchema.safeParse(raw);
    if (!parsed.success) {
      (handle as Socket | undefined)?.destroy?.();
      logger.warn({ code: "SANDBOX_SPAWNER_LOST", issues: parsed.error.issues.length }, "the spawn helper sent a message that is not one of its replies; ignored");
      return;
    }
    const message = parsed.data;
    const entry = pending.get(message.id);
    if (entry === undefined) {
      (handle as Socket | undefined)?.destroy?.();
      return;
    }
    if (message.type === "failed") {
      pending.delete(message.id);
      entry.settled = true;
      for (const stream of Object.values(entry.streams)) stream?.destroy();
      logger.debug({ err: message.message }, "the spawn helper could not start a shell");
      entry.resolve(undefined);
      return;
    }
    if (message.type === "exited") {
      pending.delete(message.id);
      entry.gone = true;
      entry.resolveExit({ exitCode: message.exitCode, signal: message.signal });
      if (!entry.settled) {
        entry.settled = true;
        for (const stream of Object.values(entry.streams)) stream?.destroy();
        entry.resolve(undefined);
      }
      return;
    }
    entry.pid = message.pid;
    const socket = handle as Socket | undefined;
    if (socket === undefined || typeof socket.destroy !== "function") return;
    entry.streams[message.stream] = socket;
    const { stdin, stdout, stderr } = entry.streams;
    if (stdin === undefined || stdout === undefined || stderr === undefined || entry.settled) return;
    entry.settled = true;
    const exit = new Promise<ShellExit>((resolve) => (entry.resolveExit = resolve));
    const closed = (stream: Socket) => new Promise<void>((resolve) => (stream.destroyed ? resolve() : stream.once("close", () => resolve())));
    const exited = exit.then(async (result) => {
      // Its output pipes close when the last process holding them is gone (the group was killed at
      // the exit); a pipe some escaped process still holds is cut after a bound.
      const bound = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
      }, 2_000);
      await Promise.all([closed(stdout), closed(stderr)]);
      clearTimeout(bound);
      stdin.destroy();
      return result;
    });
    const forkedBy = helper?.pid;
    entry.resolve({ pid: message.pid, stdin, stdout, stderr, exited, gone: () => entry.gone || !running(forkedBy) });
  };

  const start = (): ChildProcess | undefined => {
    try {
      // No environment (nothing of the service's, secrets included, reaches it or its children), no
      // inherited Node flags (a --cpu-prof of the service is the service's), no stdin.
      const child = fork(script, [], { env: {}, execArgv: [], stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "json" });
      child.on("message", onMessage);
      child.stderr?.on("data", (chunk: Buffer) => logger.warn({ code: "SANDBOX_SPAWNER_LOST", helper: String(chunk).trim().slice(0, 500) }, "the spawn helper reported a problem"));
      child.on("error", (error) => logger.warn({ code: "SANDBOX_SPAWNER_LOST", err: error.message }, "the spawn helper's channel failed"));
      child.once("exit", (exitCode, signal) => {
        if (helper === child) helper = undefined;
        const reason = `the sandbox's spawn helper stopped (${signal ?? `exit ${exitCode}`})`;
        for (const [id, entry] of [...pending]) lose(entry, id, reason);
        if (closing) return;
        const now = Date.now();
        losses.push(now);
        while (losses.length > 0 && losses[0]! < now - 60_000) losses.shift();
        givenUp = losses.length > maxRestarts;
        logger.error(
          { code: "SANDBOX_SPAWNER_LOST", exit_code: exitCode, signal, losses_last_minute: losses.length },
          givenUp
            ? "the sandbox's spawn helper stopped again: the service spawns every command's shell itself from now on"
            : "the sandbox's spawn helper stopped; what it had started was killed (a running command is reported so), and a new helper starts for the next shell",
        );
      });
      // Neither the helper nor its channel keeps the service alive, except while a shell is being started.
      child.unref();
      child.channel?.unref();
      return child;
    } catch (error) {
      givenUp = true;
      logger.error({ code: "SANDBOX_SPAWNER_LOST", err: (error as Error).message }, "the sandbox's spawn helper could not start: the service spawns every command's shell itself");
      return undefined;
    }
  };

  return {
    spawnShell(args) {
      if (closing || givenUp) return Promise.resolve(undefined);
      helper ??= start();
      const current = helper;
      if (current === undefined || !current.connected) return Promise.resolve(undefined);
      counter += 1;
      const id = counter;
      starting += 1;
      if (starting === 1) {
        current.ref();
        current.channel?.ref();
      }
      const settle = (resolve: (shell: LaunchedShell | undefined) => void) => (shell: LaunchedShell | undefined) => {
        starting -= 1;
        if (starting === 0) {
          current.unref();
          current.channel?.unref();
        }
        resolve(shell);
      };
      return new Promise<LaunchedShell | undefined>((resolve) => {
        pending.set(id, { resolve: settle(resolve), streams: {}, settled: false, gone: false, resolveExit: () => undefined });
        const request: SpawnRequest = { type: "spawn", id, file: "/bin/sh", args: [...args] };
        current.send(request, (error: Error | null) => {
          if (error === null) return;
          const entry = pending.get(id);
          if (entry !== undefined && !entry.settled) lose(entry, id, error.message);
        });
      });
    },
    pid: () => helper?.pid,
    async close() {
      closing = true;
      const current = helper;
      if (current === undefined || current.exitCode !== null || current.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => current.once("exit", () => resolve()));
      // Closing the channel is the helper's signal to kill what it has and exit.
      if (current.connected) current.disconnect();
      const bound = setTimeout(() => current.kill("SIGKILL"), 10_000);
      await gone;
      clearTimeout(bound);
    },
  };
}
