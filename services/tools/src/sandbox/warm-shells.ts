import type { Logger } from "pino";
import type { CgroupLimits, CommandCgroup } from "@aide/runtime";
import { HeadTailBuffer } from "./head-tail-buffer.js";
import type { SpawnedCommand } from "./spawn-sandboxed.js";
import { launchDirectly, type ShellLauncher } from "./launch-shell.js";
import type { LaunchedShell } from "./spawn-helper.js";

/**
 * Joining a cgroup (a write to `cgroup.procs`) waits for an RCU grace period in the kernel
 * (`cgroup_threadgroup_rwsem`): measured here at 10–18 ms after an idle moment, the largest single
 * cost of a sandboxed command. So the next command's shell is made ahead: a `/bin/sh -s` already
 * in its own fresh cgroups (with their limits), started with an empty environment, waiting on
 * stdin for the one script it will run, which ends in `exec` of the sandbox. It has run nothing
 * but the joins; the command it is given still starts in groups of its own, as before.
 */
export interface WarmShell {
  cgroup: CommandCgroup;
  /** Gives the shell its command (it `cd`s, exports the environment, then execs argv), output from now on in the buffer. */
  run(argv: readonly string[], env: Record<string, string>, cwd: string, halfOutputBytes: number): SpawnedCommand;
}

export interface WarmShells {
  /** A waiting shell ready for a command, or undefined (none could be made: start one directly). */
  take(): Promise<WarmShell | undefined>;
  /** Kills the waiting shell and releases its groups. */
  close(): Promise<void>;
}

/** A word for `sh`: single-quoted, `'` written as `'\''`. argv and values cannot hold NUL (refused before). */
export function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const environmentName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What the shell runs for its command: the same process (pid, group) execs the sandbox. */
export function commandScript(argv: readonly string[], env: Record<string, string>, cwd: string): string {
  const exports = Object.entries(env).map(([name, value]) => {
    if (!environmentName.test(name)) throw new Error(`not an environment variable name: ${JSON.stringify(name)}`);
    return shellWord(`${name}=${value}`);
  });
  // `cd` sets PWD (as a spawn in cwd does) and OLDPWD, which a direct spawn does not have.
  const steps = [`cd ${shellWord(cwd)}`, "unset OLDPWD", ...(exports.length > 0 ? [`export ${exports.join(" ")}`] : []), `exec ${argv.map(shellWord).join(" ")} </dev/null`];
  return `${steps.join(" && ")}\n`;
}

function warmShell(cgroup: CommandCgroup, limitSteps: string, child: LaunchedShell): WarmShell & { exited: Promise<unknown>; alive(): boolean; kill(): void } {
  const early: Buffer[] = [];
  let output: HeadTailBuffer | undefined;
  const take = (chunk: Buffer) => (output ? output.push(chunk) : early.push(chunk));
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  child.stdin?.on("error", () => undefined);
  // Joined and limited first, before it reads anything else: a failed step ends the shell (exit 2, as a failed redirect did).
  child.stdin?.write(`${[limitSteps, ...cgroup.procsFiles.map((file) => `echo $$ > ${shellWord(file)}`)].join(" && ")} || exit 2\n`);
  const pid = child.pid;
  let done = false;
  const exited = child.exited;
  void exited.then(() => (done = true));
  const kill = () => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // the group is already gone
    }
  };
  return {
    cgroup,
    exited,
    alive: () => !done && pid !== undefined && child.gone?.() !== true,
    kill,
    run(argv, env, cwd, halfOutputBytes) {
      output = new HeadTailBuffer(halfOutputBytes);
      for (const chunk of early.splice(0)) output.push(chunk);
      child.stdin?.end(commandScript(argv, env, cwd));
      return { pid, output, exited, kill };
    },
  };
}

/** One shell kept ready ahead of the next foreground command, started by `launch` (the spawn helper's, or directly). */
export function createWarmShells(cgroups: CgroupLimits, logger: Logger, limitSteps: string, launch: ShellLauncher = async (args) => launchDirectly(args)): WarmShells {
  let closed = false;
  const make = async (): Promise<ReturnType<typeof warmShell> | undefined> => {
    if (closed) return undefined;
    try {
      const cgroup = await cgroups.create("run");
      if (cgroup === null) return undefined;
      const child = await launch(["-s"]);
      // Closed meanwhile: the sandbox is stopping, this one is not handed out.
      if (closed) {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
        child.stdout?.resume();
        child.stderr?.resume();
        await child.exited;
        await cgroup.release();
        return undefined;
      }
      return warmShell(cgroup, limitSteps, child);
    } catch (error) {
      logger.debug({ err: (error as Error).message }, "no warm shell for the next command");
      return undefined;
    }
  };
  let next = make();
  return {
    async take() {
      // Claimed before any await: commands starting at once each get a shell of their own.
      const claimed = next;
      next = make();
      const shell = await claimed;
      if (shell === undefined) return undefined;
      if (shell.alive()) return shell;
      await shell.cgroup.release();
      return undefined;
    },
    async close() {
      closed = true;
      const shell = await next;
      if (shell === undefined) return;
      shell.kill();
      await shell.exited;
      await shell.cgroup.release();
    },
  };
}
