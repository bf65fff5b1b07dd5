import type { Stats } from "node:fs";
import type { DirectoryHandle } from "../jail/directory-handle.js";
import type { Workspace } from "../jail/workspace.js";

export interface ChangedSince {
  /** Workspace-relative paths modified at or after the time, sorted. */
  paths: string[];
  /** The walk hit its entry or path cap: the list may be incomplete. */
  incomplete: boolean;
}

/** Not walked: dependency and build folders, and git's object store (its hooks and config are). */
const skipped = new Set(["node_modules", ".aide", "__pycache__", ".venv", "venv", "target", ".next", ".cache", "dist", "build"]);
const gitWatched = ["hooks", "config", "info"];

function lstatOrNull(directory: DirectoryHandle, name: string): Stats | null {
  try {
    return directory.lstat(name);
  } catch {
    return null;
  }
}

/** Git's hooks, config and info of the workspace's own repository (its objects are not walked). */
function watchGit(root: DirectoryHandle, sinceMs: number, queue: string[], paths: string[]): void {
  const git = root.openDirectory(".git");
  if (git.kind !== "directory") return;
  try {
    for (const watched of gitWatched) {
      const stats = lstatOrNull(git.handle, watched);
      if (stats?.isDirectory()) queue.push(`.git/${watched}`);
      else if (stats !== null && Math.max(stats.mtimeMs, stats.ctimeMs) >= sinceMs) paths.push(`.git/${watched}`);
    }
  } finally {
    git.handle.close();
  }
}

/**
 * What a command changed, from modification times: every file (or symlink) under the workspace
 * touched since `sinceMs`. Bounded (entries walked, paths returned), never following links: each
 * directory is opened again through the jail without following any (a command may still be
 * swapping folders for links).
 */
export async function changedSince(workspace: Pick<Workspace, "reopenDirectory">, sinceMs: number, limits: { maxEntries?: number; maxPaths?: number } = {}): Promise<ChangedSince> {
  const maxEntries = limits.maxEntries ?? 20_000;
  const maxPaths = limits.maxPaths ?? 200;
  const paths: string[] = [];
  let entries = 0;
  let incomplete = false;
  const queue: string[] = ["."];
  while (queue.length > 0) {
    const relative = queue.shift()!;
    let directory: DirectoryHandle | null = null;
    try {
      directory = workspace.reopenDirectory(relative);
      if (directory === null) continue;
      for (const dirent of directory.entries()) {
        entries += 1;
        if (entries > maxEntries || paths.length >= maxPaths) {
          incomplete = true;
          queue.length = 0;
          break;
        }
        const path = relative === "." ? dirent.name : `${relative}/${dirent.name}`;
        if (dirent.isDirectory()) {
          if (skipped.has(dirent.name)) continue;
          if (dirent.name === ".git" && relative === ".") watchGit(directory, sinceMs, queue, paths);
          else queue.push(path);
          continue;
        }
        const stats = lstatOrNull(directory, dirent.name);
        if (stats !== null && Math.max(stats.mtimeMs, stats.ctimeMs) >= sinceMs) paths.push(path);
      }
    } catch {
      // unreadable or gone: skipped
    } finally {
      directory?.close();
    }
  }
  return { paths: paths.sort(), incomplete };
}
