import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { isInside } from "./is-inside.js";
import { findGitDirectoriesSync, type GitDirectoryScanOptions } from "../workspaces/find-git-directories.js";
import { toolchainHomes } from "./toolchain-homes.js";
import type { SandboxProfile } from "./service-sandbox-profile.js";

export interface SandboxLaunch {
  profile: SandboxProfile;
  /** The service's whole environment (already an allow-list). */
  env: Record<string, string>;
  /** The program and its arguments inside the sandbox. */
  command: string[];
  home: string;
  aideHome: string;
  installRoot: string;
  credentialsFile: string;
  workspaceRoots: string[];
  /** Further files or folders the service must read (its models, the gateway's token). */
  readOnly: string[];
  /** Further folders hidden (an external bus's credentials and keys); `readOnly` files inside stay visible. */
  hidden?: string[];
  /** Further folders the service may write (its delegated cgroups). */
  readWrite?: string[];
  /** File descriptor bubblewrap reports the sandboxed child's pid on. */
  infoFd?: number;
}

/**
 * Every `.git` folder under a root (nested repositories too), as walked: a symlinked `.git` is
 * not followed, and node_modules and `.aide` are not searched. Bounded in depth and count.
 */
const gitFolderScan: GitDirectoryScanOptions = { reach: "folders", limits: { maxDepth: 6, maxEntries: Number.POSITIVE_INFINITY, maxFound: 500 } };

/**
 * The bubblewrap argument list for one service: the order matters (later mounts cover earlier
 * ones): the read-only system, then the hidden places, then the workspace, then what the service
 * must still see (its code, its credentials file, its models or token).
 */
export function serviceSandboxArguments(launch: SandboxLaunch): string[] {
  const { profile } = launch;
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session");
  const hidden = [launch.home, launch.aideHome, ...(launch.hidden ?? [])].filter((path, index, all) => path && all.indexOf(path) === index && !isInside(path, "/tmp"));
  for (const path of hidden) if (existsSync(path)) args.push("--tmpfs", path);

  for (const root of launch.workspaceRoots) {
    if (profile.workspace === "hidden") {
      args.push("--tmpfs", root);
      continue;
    }
    args.push("--bind", root, root);
    for (const inner of profile.readOnlyInWorkspace) {
      if (inner === ".aide") {
        mkdirSync(join(root, ".aide"), { recursive: true });
        args.push("--ro-bind", join(root, ".aide"), join(root, ".aide"));
      } else {
        for (const { directory: gitDir } of findGitDirectoriesSync(root, gitFolderScan).directories) {
          const target = inner === ".git" ? gitDir : join(gitDir, "hooks");
          if (existsSync(target)) args.push("--ro-bind", target, target);
        }
      }
    }
  }

  const nodePrefix = dirname(dirname(launch.command[0] ?? process.execPath));
  const visible = [launch.installRoot, nodePrefix];
  for (const path of visible) {
    const coveredByHiding = hidden.some((h) => isInside(path, h)) || isInside(path, "/tmp") || launch.workspaceRoots.some((r) => isInside(path, r));
    if (coveredByHiding && existsSync(path)) args.push("--ro-bind", path, path);
  }
  for (const extra of profile.aideHomePaths) {
    const path = join(launch.aideHome, extra.path);
    if (!existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o700 });
    args.push(extra.access === "read-only" ? "--ro-bind" : "--bind", path, path);
  }
  const toolchains = profile.toolchains === true ? toolchainHomes({ ...launch.env, HOME: launch.home }).folders : [];
  for (const path of [launch.credentialsFile, ...launch.readOnly, ...toolchains]) {
    if (path && existsSync(path)) args.push("--ro-bind", path, path);
  }
  for (const path of launch.readWrite ?? []) {
    if (existsSync(path)) args.push("--bind", path, path);
  }

  args.push("--cap-drop", "ALL");
  for (const capability of profile.capabilities) args.push("--cap-add", capability);
  args.push("--clearenv");
  for (const [key, value] of Object.entries(launch.env)) args.push("--setenv", key, value);
  if (launch.infoFd !== undefined) args.push("--info-fd", String(launch.infoFd));
  args.push("--chdir", "/", "--", ...launch.command);
  return args;
}
