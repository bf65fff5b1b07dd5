import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { isInside } from "./is-inside.js";
import { isolatedProcessArguments } from "./isolated-process-arguments.js";

export interface CommandLimits {
  fileSizeBytes: number;
  openFiles: number;
  addressSpaceBytes?: number;
}

/**
 * The same limits as `sh` builtins (soft and hard, as prlimit sets them), run by the shell that
 * execs bubblewrap: no prlimit process per command. `ulimit -f` counts 512-byte blocks (POSIX
 * sh), `-v` KiB; both rounded down, never up.
 */
export function shellLimits(limits: CommandLimits): string {
  const steps = [`ulimit -f ${Math.floor(limits.fileSizeBytes / 512)}`, `ulimit -n ${limits.openFiles}`, "ulimit -c 0"];
  if (limits.addressSpaceBytes !== undefined) steps.push(`ulimit -v ${Math.floor(limits.addressSpaceBytes / 1024)}`);
  return steps.join(" && ");
}

export interface CommandSandboxOptions {
  workspace: string;
  cwd: string;
  network: boolean;
  /** Host paths to hide (directories get an empty tmpfs, files /dev/null). */
  hide: readonly string[];
  /** Workspace roots: hidden (sibling repositories), then the workspace is bound back inside. */
  hideRoots?: readonly string[];
  /**
   * Git directories of the workspace's repositories (found at command start): their hooks/ and
   * config, and the `.git` file pointing at them, are bound read-only so a command cannot plant
   * what git on the host would run.
   */
  gitDirectories?: ReadonlyArray<{ directory: string; pointerFile?: string }>;
  /**
   * Build caches kept between this workspace's commands (host folder, path inside): Go's, at
   * /tmp/home/.cache/go-build, where go looks with HOME=/tmp/home. Only this workspace's commands
   * see its cache; hidden checks and go vet use caches of their own.
   */
  caches?: ReadonlyArray<{ host: string; inside: string }>;
  /**
   * Resource limits applied with prlimit inside the sandbox. Absent when the shell that starts
   * bubblewrap has set them already (`shellLimits`, inherited by bubblewrap and the command).
   */
  limits?: CommandLimits;
}

/**
 * bubblewrap: the host read-only, a private /tmp, the workspace read-write except `.aide/`
 * (read-only), fresh pid/ipc/uts (and net unless consented) namespaces, a new session (no
 * TIOCSTI), killed with its parent.
 */
export function commandSandboxArguments(options: CommandSandboxOptions, argv: readonly string[]): string[] {
  const args = isolatedProcessArguments(options.network);
  const hidden = options.hide.filter((path) => {
    if (isInside(options.workspace, path) || !existsSync(path)) return false;
    return !(path.startsWith("/tmp/") || path.startsWith("/run/") || path.startsWith("/var/tmp/"));
  });
  for (const path of hidden) {
    // Inside another hidden directory it is already gone.
    if (hidden.some((other) => other !== path && isInside(path, other))) continue;
    const isDirectory = statSync(path).isDirectory();
    args.push(...(isDirectory ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]));
  }
  for (const root of options.hideRoots ?? []) {
    if (root !== "/" && isInside(options.workspace, root) && existsSync(root)) args.push("--tmpfs", root);
  }
  for (const cache of options.caches ?? []) args.push("--bind", cache.host, cache.inside);
  args.push("--bind", options.workspace, options.workspace);
  const aide = `${options.workspace}/.aide`;
  // Only a real directory: a `.aide` symlink planted by a repository must not pick a mount source.
  if (lstatSync(aide, { throwIfNoEntry: false })?.isDirectory()) args.push("--ro-bind", aide, aide);
  for (const git of options.gitDirectories ?? []) args.push(...gitReadOnly(git, options.workspace));
  args.push("--chdir", options.cwd, "--");
  if (options.limits === undefined) return [...args, ...argv];
  const limits = ["prlimit", `--fsize=${options.limits.fileSizeBytes}`, `--nofile=${options.limits.openFiles}`, "--core=0"];
  if (options.limits.addressSpaceBytes !== undefined) limits.push(`--as=${options.limits.addressSpaceBytes}`);
  args.push(...limits, "--", ...argv);
  return args;
}

/**
 * Read-only mounts over one repository's hooks/ and config (and its `.git` pointer file), the git
 * directory itself bound onto itself so that it cannot be moved away and replaced. A
 * missing hooks/ gets an empty read-only tmpfs and a missing config /dev/null, so neither can be
 * created either; a symlinked one is bound at its target when that stays in the workspace.
 */
function gitReadOnly(git: { directory: string; pointerFile?: string }, workspace: string): string[] {
  const args: string[] = [];
  const pin = (path: string, kind: "directory" | "file") => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) {
      args.push(...(kind === "directory" ? ["--tmpfs", path, "--remount-ro", path] : ["--ro-bind", "/dev/null", path]));
      return;
    }
    const target = stats.isSymbolicLink() ? realpathSync(path) : path;
    if (isInside(target, workspace)) args.push("--ro-bind", target, target);
  };
  if (!isInside(git.directory, workspace) || !lstatSync(git.directory, { throwIfNoEntry: false })?.isDirectory()) return args;
  // A mount point cannot be renamed: `mv .git elsewhere && mkdir -p .git/hooks` is refused (EBUSY).
  args.push("--bind", git.directory, git.directory);
  pin(`${git.directory}/hooks`, "directory");
  pin(`${git.directory}/config`, "file");
  if (git.pointerFile !== undefined && isInside(git.pointerFile, workspace)) pin(git.pointerFile, "file");
  return args;
}
