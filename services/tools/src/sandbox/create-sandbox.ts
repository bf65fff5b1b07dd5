import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { aideError } from "@aide/contracts";
import type { Logger } from "pino";
import type { RunningCommand, Sandbox, SandboxMode, SandboxRunOptions } from "./sandbox.js";
import { sandboxEnvironment, secretPaths } from "./sandbox-environment.js";
import { halfOutputBytes, startCommand, superviseCommand } from "./start-command.js";
import { createPreparedJails, type JailProfile } from "./prepared-jails.js";
import { createCommandSlots } from "./command-slots.js";
import { createWarmShells } from "./warm-shells.js";
import { createSpawnHelper } from "./spawn-helper.js";
import { shellLauncher } from "./launch-shell.js";
import { isInside } from "../jail/is-inside.js";
import { commandSandboxArguments, createCgroupLimits, shellLimits, type CgroupLimits, type GitDirectory } from "@aide/runtime";
import { createGitDirectoryCache } from "../files/git-directory-cache.js";

export interface SandboxSettings {
  unsafeNoSandbox: boolean;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  maxProcesses?: number;
  maxMemoryBytes?: number;
  maxFileSizeBytes?: number;
  /** Foreground commands at once (default 4) and waiting behind them (default 16) before BUSY. */
  maxConcurrentCommands?: number;
  /** Commands of one session waiting at most (default 4), so sessions take turns fairly. */
  maxQueuedCommandsPerSession?: number;
  maxQueuedCommands?: number;
  /**
   * AIDE_WORKSPACE_ROOTS (real paths): each is hidden from commands and only the command's own
   * workspace bound back, so sibling repositories stay unreadable. A root holding a PATH entry
   * (a toolchain under it) is not hidden.
   */
  workspaceRoots?: readonly string[];
  /** "required" (default): a command whose cgroup limits cannot be applied is refused; "off": it runs without. */
  commandLimits?: "required" | "off";
  /** Where the cgroup v1 hierarchies are mounted (default /sys/fs/cgroup). */
  cgroupRoot?: string;
  /**
   * Where each workspace's commands keep Go's build cache (`<folder>/<hash of the workspace>`):
   * without it every `go test` compiles the standard library again (a minute on two cores).
   */
  buildCacheDirectory?: string;
  /**
   * Foreground commands' jails set up ahead, at most this many (one per workspace and network
   * profile; default 4, 0 = none: every command starts bubblewrap itself). prepared-jails.ts.
   */
  preparedJails?: number;
  /**
   * The shells and jails made ahead are forked by a small helper process and their pipes passed
   * back (spawn-helper.ts), so no fork of the service blocks its event loop (default true;
   * AIDE_TOOLS_SPAWN_HELPER=off: the service forks them itself, as before).
   */
  spawnHelper?: boolean;
  /** The helper's entry (tests; default the compiled spawn-helper-process.js). */
  spawnHelperScript?: string;
}

/** bwrap works here if it can build the namespaces we use. */
async function probeBwrap(): Promise<string | undefined> {
  try {
    const result = await execa("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session", "true"], {
      reject: false,
      timeout: 10_000,
      stdin: "ignore",
    });
    return result.exitCode === 0 ? undefined : `bwrap failed: ${String(result.stderr).trim() || `exit ${result.exitCode}`}`;
  } catch (error) {
    return `bubblewrap (bwrap) is not installed: ${(error as Error).message}`;
  }
}

/**
 * The command sandbox. At start it checks bubblewrap; without it commands are refused unless the
 * operator passed --unsafe-no-sandbox (said loudly in the log).
 */
export async function createSandbox(settings: SandboxSettings): Promise<Sandbox> {
  const env = settings.env ?? process.env;
  const logger = settings.logger;
  const problem = await probeBwrap();
  let mode: SandboxMode = "bwrap";
  if (problem !== undefined) {
    mode = settings.unsafeNoSandbox ? "unsafe-none" : "unavailable";
    if (mode === "unsafe-none") logger.error({ problem }, "UNSAFE: commands will run WITHOUT a sandbox (--unsafe-no-sandbox): no jail, network and secrets reachable");
    else logger.error({ problem }, "bubblewrap is unavailable: run_command and process tools are refused (start with --unsafe-no-sandbox to override, unsafely)");
  } else if (settings.unsafeNoSandbox) {
    logger.warn("--unsafe-no-sandbox given but bubblewrap works; commands stay sandboxed");
  }
  const cgroups: CgroupLimits = await createCgroupLimits({
    maxProcesses: settings.maxProcesses ?? 512,
    maxMemoryBytes: settings.maxMemoryBytes ?? 2 * 1024 ** 3,
    logger,
    cgroupRoot: settings.cgroupRoot,
  });
  const limitsRequired = settings.commandLimits !== "off";
  const limitsProblem = cgroups.available
    ? undefined
    : `this host gives the tools service no writable cgroup v1 pids and memory controllers (usable: ${cgroups.describe})${cgroups.v2Problem ? ` and no delegated cgroup v2 domain (${cgroups.v2Problem})` : ""}; an operator may set AIDE_TOOLS_COMMAND_LIMITS=off to run commands without per-command limits`;
  if (limitsProblem !== undefined && limitsRequired && mode !== "unavailable")
    logger.error({ code: "SANDBOX_LIMITS_UNAVAILABLE", problem: limitsProblem }, "per-command limits unavailable: run_command and process tools are refused");
  else if (limitsProblem !== undefined && mode !== "unavailable")
    logger.warn({ code: "SANDBOX_LIMITS_UNAVAILABLE", problem: limitsProblem }, "AIDE_TOOLS_COMMAND_LIMITS=off: commands run without per-command process and memory limits");
  logger.info({ mode, cgroups: cgroups.describe, limits: limitsRequired ? "required" : "off" }, "command sandbox ready");
  const hide = secretPaths(env.HOME, env);
  const pathEntries = (env.PATH ?? "").split(":").filter((entry) => entry.startsWith("/"));
  const hideRoots = (settings.workspaceRoots ?? []).filter((root) => root !== "/" && !pathEntries.some((entry) => isInside(root, entry)));
  const slots = createCommandSlots(settings.maxConcurrentCommands ?? 4, settings.maxQueuedCommands ?? 16, settings.maxQueuedCommandsPerSession ?? 4);
  const limits = { fileSizeBytes: settings.maxFileSizeBytes ?? 1024 ** 3, openFiles: 4096 };

  const caches = (workspace: string) => {
    if (settings.buildCacheDirectory === undefined) return [];
    const host = join(settings.buildCacheDirectory, createHash("sha256").update(workspace).digest("hex").slice(0, 24), "go-build");
    mkdirSync(host, { recursive: true, mode: 0o700 });
    return [{ host, inside: "/tmp/home/.cache/go-build" }];
  };
  const jailOptions = (options: SandboxRunOptions, gitDirectories: GitDirectory[], cwd: string) => ({
    workspace: options.workspace,
    cwd,
    network: options.network,
    hide,
    hideRoots,
    gitDirectories,
    caches: caches(options.workspace),
  });
  const wrap = (options: SandboxRunOptions, gitDirectories: GitDirectory[] = []) => {
    const environment = sandboxEnvironment(env, options.env);
    // The limits are set by the shell that starts bubblewrap (startCommand), not by a prlimit inside.
    if (mode === "bwrap") return { file: "bwrap", args: commandSandboxArguments(jailOptions(options, gitDirectories, options.cwd), options.argv), env: environment };
    return { file: "prlimit", args: [`--fsize=${limits.fileSizeBytes}`, `--nofile=${limits.openFiles}`, "--core=0", "--", ...options.argv], env: { ...environment, HOME: options.workspace } };
  };

  const gitScans = createGitDirectoryCache();
  // Foreground commands take a shell that joined its cgroups ahead (only where commands run in groups).
  const limitSteps = mode === "bwrap" ? shellLimits(limits) : undefined;
  const madeAhead = limitSteps !== undefined && cgroups.available;
  // Both are forked off the service's event loop by the spawn helper when it can (else directly).
  const helper = madeAhead && settings.spawnHelper !== false ? createSpawnHelper({ logger, ...(settings.spawnHelperScript !== undefined ? { script: settings.spawnHelperScript } : {}) }) : undefined;
  const launch = shellLauncher(helper);
  const warm = madeAhead ? createWarmShells(cgroups, logger, limitSteps, launch) : undefined;
  // And their whole jail, per workspace and network profile (the command then cds to its cwd).
  const jails =
    warm !== undefined && limitSteps !== undefined && (settings.preparedJails ?? 4) > 0 ? createPreparedJails(cgroups, logger, limitSteps, settings.preparedJails ?? 4, undefined, launch) : undefined;
  const jailProfile = (options: SandboxRunOptions, gitDirectories: GitDirectory[]): JailProfile => ({
    slot: `${options.workspace}\0${options.network ? "network" : "no-network"}`,
    args: commandSandboxArguments(jailOptions(options, gitDirectories, options.workspace), []),
  });
  // Preparing is background work (a spawn blocks the event loop for milliseconds, more under
  // load): only for a profile that has had a command in the last minute, and only while no other
  // command is running or waiting, so it never competes with foreground work.
  const lastCommand = new Map<string, number>();
  const prepareNext = (options: SandboxRunOptions, profile: JailProfile) => {
    const now = Date.now();
    const previous = lastCommand.get(profile.slot);
    lastCommand.delete(profile.slot);
    lastCommand.set(profile.slot, now);
    if (lastCommand.size > 1024) lastCommand.delete(lastCommand.keys().next().value as string);
    if (previous === undefined || now - previous > 60_000 || slots.inUse() > 1 || slots.waiting() > 0) return;
    void gitScans
      .current(options.workspace)
      .then((scan) => jails?.prepare(jailProfile(options, scan.directories)))
      .catch((error: Error) => logger.debug({ err: error.message }, "no jail prepared for the next command"));
  };

  const start = async (options: SandboxRunOptions, name: string): Promise<RunningCommand> => {
    if (mode === "unavailable") throw aideError("SANDBOX_UNAVAILABLE", { detail: problem ?? "bubblewrap is unavailable" });
    if (limitsRequired && limitsProblem !== undefined) throw aideError("SANDBOX_LIMITS_UNAVAILABLE", { detail: limitsProblem });
    // The repositories as they are now (one scan per workspace, re-checked by stat before each
    // command): a .git created by this command is not covered.
    const gitDirectories = mode === "bwrap" ? (await gitScans.current(options.workspace)).directories : [];
    if (name === "run" && jails !== undefined) {
      // A jail prepared for this profile, if it is still what this start would build; the next one is prepared once this command is done.
      const profile = jailProfile(options, gitDirectories);
      const jail = await jails.take(profile);
      const running =
        jail !== undefined
          ? superviseCommand(jail.run(options.argv, sandboxEnvironment(env, options.env), options.cwd, halfOutputBytes(options)), jail.cgroup, options)
          : await startCommand(wrap(options, gitDirectories), options, cgroups, name, { ...(limitSteps !== undefined ? { limitSteps } : {}), ...(warm ? { warm } : {}) });
      void running.finished.then(() => prepareNext(options, profile));
      return running;
    }
    return startCommand(wrap(options, gitDirectories), options, cgroups, name, { ...(limitSteps !== undefined ? { limitSteps } : {}), ...(name === "run" && warm ? { warm } : {}) });
  };

  return {
    mode,
    unavailableReason: mode === "unavailable" ? problem : undefined,
    wrap,
    start,
    gitDirectories: (workspace) => gitScans.current(workspace),
    async close() {
      await jails?.close();
      await warm?.close();
      // Last: what the two above ended was the helper's to reap.
      await helper?.close();
      await cgroups.drain();
    },
    async run(options) {
      const release = await slots.acquire(options.signal, options.session);
      try {
        return await (await start(options, "run")).finished;
      } finally {
        release();
      }
    },
  };
}
