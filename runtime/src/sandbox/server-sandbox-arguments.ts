import { existsSync } from "node:fs";
import { dirname } from "node:path";
import type { McpStdioServerConfig } from "@aide/contracts";
import { findGitDirectoriesSync, type GitDirectoryScanOptions } from "../workspaces/find-git-directories.js";
import { isInside } from "./is-inside.js";
import { isolatedProcessArguments } from "./isolated-process-arguments.js";

export interface ServerSandboxOptions {
  server: McpStdioServerConfig;
  /** The workspace roots the service serves: visible read-only (read-write when declared). */
  workspaceRoots: string[];
  /** Hidden entirely (an empty tmpfs): the home directory and `$AIDE_HOME`. */
  hide: string[];
  /** Other workspace roots, hidden (a trusted workspace's server sees only its own workspace). */
  hideRoots?: string[];
  /** Folders that stay visible although inside a hidden one (the install root, Node's prefix). */
  keepVisible: string[];
  /** The server's whole environment (already an allow-list). */
  env: Record<string, string>;
}

/**
 * bubblewrap for one stdio MCP server: the system read-only, a private /tmp, /var/tmp and /run,
 * the home and `$AIDE_HOME` hidden, the workspace read-only (read-write only when the person
 * declared the server writes it, `.aide` and `.git` still read-only), no network namespace of its
 * own unless the person consented, fresh pid/ipc/uts namespaces, all capabilities dropped, a new
 * session, killed with the service (`--die-with-parent`). Core dumps off, open files capped.
 */
export function serverSandboxArguments(options: ServerSandboxOptions): string[] {
  const { server } = options;
  const args = isolatedProcessArguments(server.network);
  const temporary = (path: string) => ["/tmp", "/var/tmp", "/run"].some((root) => isInside(path, root));
  for (const path of options.hide) {
    if (path && existsSync(path) && !temporary(path)) args.push("--tmpfs", path);
  }
  for (const path of options.keepVisible) {
    const covered = options.hide.some((hidden) => isInside(path, hidden)) || temporary(path);
    if (covered && existsSync(path)) args.push("--ro-bind", path, path);
  }
  for (const root of options.hideRoots ?? []) {
    if (root !== "/" && existsSync(root) && !options.workspaceRoots.includes(root)) args.push("--tmpfs", root);
  }
  for (const root of options.workspaceRoots) {
    if (!existsSync(root)) continue;
    args.push(server.workspace_write ? "--bind" : "--ro-bind", root, root);
    if (!server.workspace_write) continue;
    for (const { directory } of findGitDirectoriesSync(root, protectedDirectoryScan).directories) args.push("--ro-bind", directory, directory);
  }
  // `$AIDE_HOME` inside a workspace root stays hidden: the binds above must not bring it back.
  for (const path of options.hide) {
    if (path && existsSync(path) && options.workspaceRoots.some((root) => isInside(path, root))) args.push("--tmpfs", path);
  }
  args.push("--clearenv");
  for (const [key, value] of Object.entries(options.env)) args.push("--setenv", key, value);
  args.push("--chdir", options.workspaceRoots.find((root) => existsSync(root)) ?? "/tmp", "--");
  args.push("prlimit", "--core=0", "--nofile=4096", "--", server.command, ...server.args);
  return args;
}

/** Node's install prefix (its bin/ and lib/), which must stay visible for `node` servers. */
export function nodePrefix(): string {
  return dirname(dirname(process.execPath));
}

/**
 * Every `.aide` and `.git` directory under a root (nested repositories too), bounded in depth and
 * count. Only real directories: a symlink planted by a repository must not pick a mount source.
 */
const protectedDirectoryScan: GitDirectoryScanOptions = {
  reach: "folders",
  names: [".git", ".aide"],
  skipped: ["node_modules"],
  limits: { maxDepth: 5, maxEntries: Number.POSITIVE_INFINITY, maxFound: 200 },
};
