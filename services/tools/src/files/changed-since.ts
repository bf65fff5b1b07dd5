import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

export interface ChangedSince {
  /** Workspace-relative paths modified at or after the time, sorted. */
  paths: string[];
  /** The walk hit its entry or path cap: the list may be incomplete. */
  incomplete: boolean;
}

/** Not walked: dependency and build folders, and git's object store (its hooks and config are). */
const skipped = new Set(["node_modules", ".aide", "__pycache__", ".venv", "venv", "target", ".next", ".cache", "dist", "build"]);
const gitWatched = ["hooks", "config", "info"];

/**
 * What a command changed, from modification times: every file (or symlink) under the workspace
 * touched since `sinceMs`. Bounded (entries walked, paths returned), never following links.
 */
export async function changedSince(root: string, sinceMs: number, limits: { maxEntries?: number; maxPaths?: number } = {}): Promise<ChangedSince> {
  const maxEntries = limits.maxEntries ?? 20_000;
  const maxPaths = limits.maxPaths ?? 200;
  const paths: string[] = [];
  let entries = 0;
  let incomplete = false;
  const queue: string[] = ["."];
  while (queue.length > 0) {
    const relative = queue.shift()!;
    const absolute = relative === "." ? root : join(root, relative);
    const dirents = await readdir(absolute, { withFileTypes: true }).catch(() => []);
    for (const dirent of dirents) {
      entries += 1;
      if (entries > maxEntries || paths.length >= maxPaths) {
        incomplete = true;
        queue.length = 0;
        break;
      }
      const path = relative === "." ? dirent.name : `${relative}/${dirent.name}`;
      if (dirent.isDirectory()) {
        if (skipped.has(dirent.name)) continue;
        if (dirent.name === ".git" && relative === ".") {
          for (const watched of gitWatched) {
            const stats = await lstat(join(root, ".git", watched)).catch(() => null);
            if (stats?.isDirectory()) queue.push(`.git/${watched}`);
            else if (stats !== null && Math.max(stats.mtimeMs, stats.ctimeMs) >= sinceMs) paths.push(`.git/${watched}`);
          }
          continue;
        }
        queue.push(path);
        continue;
      }
      const stats = await lstat(join(root, path)).catch(() => null);
      if (stats !== null && Math.max(stats.mtimeMs, stats.ctimeMs) >= sinceMs) paths.push(path);
    }
  }
  return { paths: paths.sort(), incomplete };
}
