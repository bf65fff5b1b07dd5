import { existsSync, lstatSync, statSync } from "node:fs";
import { isInside } from "../jail/is-inside.js";

export interface BwrapOptions {
  workspace: string;
  cwd: string;
  network: boolean;
  /** Host paths to hide (directories get an empty tmpfs, files /dev/null). */
  hide: readonly string[];
  /** Workspace roots: hidden (sibling repositories), then the workspace is bound back inside. */
  hideRoots?: readonly string[];
  /** Resource limits applied with prlimit inside the sandbox. */
  limits: { fileSizeBytes: number; openFiles: number; addressSpaceBytes?: number };
}

/**
 * bubblewrap: the host read-only, a private /tmp, the workspace read-write except `.aide/`
 * (read-only), fresh pid/ipc/uts (and net unless consented) namespaces, a new session (no
 * TIOCSTI), killed with its parent.
 */
export function bwrapArguments(options: BwrapOptions, argv: readonly string[]): string[] {
  const args = ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
  if (!options.network) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run", "--dir", "/tmp/home");
  const hidden = options.hide.filter((path) => {
    if (isInside(path, options.workspace) || !existsSync(path)) return false;
    return !(path.startsWith("/tmp/") || path.startsWith("/run/") || path.startsWith("/var/tmp/"));
  });
  for (const path of hidden) {
    // Inside another hidden directory it is already gone.
    if (hidden.some((other) => other !== path && isInside(other, path))) continue;
    const isDirectory = statSync(path).isDirectory();
    args.push(...(isDirectory ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]));
  }
  for (const root of options.hideRoots ?? []) {
    if (root !== "/" && isInside(root, options.workspace) && existsSync(root)) args.push("--tmpfs", root);
  }
  args.push("--bind", options.workspace, options.workspace);
  const aide = `${options.workspace}/.aide`;
  // Only a real directory: a `.aide` symlink planted by a repository must not pick a mount source.
  if (lstatSync(aide, { throwIfNoEntry: false })?.isDirectory()) args.push("--ro-bind", aide, aide);
  args.push("--chdir", options.cwd, "--");
  const limits = ["prlimit", `--fsize=${options.limits.fileSizeBytes}`, `--nofile=${options.limits.openFiles}`, "--core=0"];
  if (options.limits.addressSpaceBytes !== undefined) limits.push(`--as=${options.limits.addressSpaceBytes}`);
  args.push(...limits, "--", ...argv);
  return args;
}
