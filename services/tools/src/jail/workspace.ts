import { realpath, stat } from "node:fs/promises";
import type { Stats } from "node:fs";
import { isAbsolute, join } from "node:path";
import { aideError, workspaceOnDiskTooBroadError } from "@aide/contracts";
import { homeWorkspaceRuleFromEnv, type HomeWorkspaceRule } from "@aide/runtime";
import { isInside } from "./is-inside.js";
import { reopenDirectory, resolveBeneath, type WorkspaceRoot } from "./resolve-beneath.js";
import type { DirectoryHandle } from "./directory-handle.js";
import { openDirectoryBeneath, openFileBeneath, readFileBeneath, removeFileBeneath, renameFileBeneath, writeFileBeneath, type OpenedDirectory, type OpenedFile } from "./workspace-files.js";

/** Where a path leads, for messages, previews and a command's working directory. */
export interface JailedPath {
  /** Absolute real path (for a command's working directory; never for file I/O). */
  absolute: string;
  /** Workspace-relative with forward slashes; "." for the root itself. */
  relative: string;
  /** lstat of the resolved target, or null when it does not exist yet. */
  stats: Stats | null;
}

/**
 * A workspace root that passed the checks. Every file operation of every tool goes through these
 * methods, which walk the path from a descriptor of the root (see resolve-beneath.ts) and then work
 * on descriptors; nothing opens a workspace path by name.
 */
export interface Workspace {
  /** Real path of the root. */
  root: string;
  resolve(input: string): Promise<JailedPath>;
  /** A regular file opened for reading; its handle is the caller's to close. */
  openFile(input: string): Promise<OpenedFile>;
  /** The whole file, or null when there is none. */
  readFile(input: string): Promise<Buffer | null>;
  /** A directory opened for listing and walking; its handle is the caller's to close. */
  openDirectory(input: string): Promise<OpenedDirectory>;
  /** A directory met in a walk, opened again by its real relative path without following any link; null when it is gone. */
  reopenDirectory(relative: string): DirectoryHandle | null;
  writeFile(input: string, data: Buffer): Promise<void>;
  removeFile(input: string): Promise<void>;
  renameFile(from: string, to: string): Promise<void>;
}

/** Directories that are never a workspace: the system itself, or a whole home or temp directory. */
const notWorkspaces = new Set([
  "/",
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/boot",
  "/dev",
  "/proc",
  "/sys",
  "/var",
  "/run",
  "/root",
  "/home",
  "/tmp",
  "/opt",
  "/srv",
  "/mnt",
  "/media",
]);
const neverInside = ["/proc", "/sys", "/dev", "/etc", "/boot", "/run"];

export function isSystemDirectory(root: string, home: string | undefined = process.env.HOME): boolean {
  if (notWorkspaces.has(root)) return true;
  if (home !== undefined && root === home.replace(/\/$/, "")) return true;
  return neverInside.some((dir) => isInside(dir, root));
}

/** The jail's operations on one verified root. */
export function workspaceAt(root: WorkspaceRoot): Workspace {
  return {
    root: root.path,
    async resolve(input) {
      const found = resolveBeneath(root, input);
      found.directory.close();
      return { absolute: found.relative === "." ? root.path : join(root.path, found.relative), relative: found.relative, stats: found.stats };
    },
    openFile: (input) => openFileBeneath(root, input),
    readFile: (input) => readFileBeneath(root, input),
    openDirectory: async (input) => openDirectoryBeneath(root, input),
    reopenDirectory: (relative) => reopenDirectory(root, relative),
    writeFile: (input, data) => writeFileBeneath(root, input, data),
    removeFile: async (input) => removeFileBeneath(root, input),
    renameFile: async (from, to) => renameFileBeneath(root, from, to),
  };
}

/**
 * Validates the request's workspace: absolute, an existing directory, not a system, home or temp
 * directory itself, not a folder the home-folder rule refuses (WORKSPACE_TOO_BROAD, the rule of
 * `aide up` and the orchestrator: a caller on the bus may skip those), and (when roots are
 * configured with AIDE_WORKSPACE_ROOTS) inside one of them after symlink resolution.
 */
export async function openWorkspace(input: string, allowedRoots: readonly string[], homeRule: HomeWorkspaceRule = homeWorkspaceRuleFromEnv()): Promise<Workspace> {
  if (!isAbsolute(input) || input.includes("\0")) throw aideError("WORKSPACE_NOT_FOUND", { workspace: JSON.stringify(input) });
  let root: string;
  let stats: Stats;
  try {
    root = await realpath(input);
    stats = await stat(root);
  } catch {
    throw aideError("WORKSPACE_NOT_FOUND", { workspace: JSON.stringify(input) });
  }
  if (!stats.isDirectory()) throw aideError("WORKSPACE_NOT_A_DIRECTORY", { workspace: JSON.stringify(input) });
  const tooBroad = workspaceOnDiskTooBroadError(input, root, homeRule);
  if (tooBroad) throw tooBroad;
  if (isSystemDirectory(root)) throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: JSON.stringify(input) });
  if (allowedRoots.length > 0) {
    const reals = await Promise.all(allowedRoots.map((r) => realpath(r).catch(() => null)));
    if (!reals.some((r) => r !== null && isInside(r, root))) {
      throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: JSON.stringify(input) });
    }
  }
  return workspaceAt({ path: root, device: stats.dev, inode: stats.ino });
}
