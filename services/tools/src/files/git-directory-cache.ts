import { lstatSync, statSync, type BigIntStats } from "node:fs";
import { findGitDirectories, type GitDirectoryScan } from "@aide/runtime";

/** A scan that is still what a fresh scan would find, with a token that changes whenever it does. */
export interface CurrentGitScan extends GitDirectoryScan {
  /** Changes whenever the scan is redone (a folder it read or a link it followed changed). */
  generation: number;
  /** Repositories reached from the workspace whose git directory lies outside it (not in `directories`). */
  leftOut: number;
}

export interface GitDirectoryCache {
  /** The workspace's git directories: the cached scan after checking it still holds, or a fresh one. */
  current(root: string): Promise<CurrentGitScan>;
  /** Forgets a workspace's scan (a tool reported a change that may have made or moved a repository). */
  invalidate(root: string): void;
}

/**
 * Identity of one path for the configuration cache (not following links): a file's inode, size and
 * times; a folder's inode only (a git directory's times move with every index write).
 */
export function pathIdentity(path: string): string {
  let stats: BigIntStats;
  try {
    stats = lstatSync(path, { bigint: true });
  } catch {
    return "-";
  }
  return stats.isDirectory() ? `${stats.dev}:${stats.ino}:${stats.mode}` : `${stats.dev}:${stats.ino}:${stats.mode}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** Identity of one path as the scan saw it: inode, change and modification times (ns), size. */
function identity(path: string, follow: boolean): string {
  let stats: BigIntStats;
  try {
    stats = follow ? statSync(path, { bigint: true }) : lstatSync(path, { bigint: true });
  } catch {
    return "-";
  }
  return `${stats.dev}:${stats.ino}:${stats.mode}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

interface Observed {
  path: string;
  follow: boolean;
  seen: string;
}

interface Entry {
  scan: CurrentGitScan;
  observed: Observed[];
}

/**
 * A folder changed within this long before the scan read it may change again in the same tick of
 * the kernel's coarse file clock (1-10 ms) without its times moving: such a scan is not reused.
 */
const racyWindowNs = 50_000_000n;

function stillHolds(entry: Entry): boolean {
  for (const seen of entry.observed) if (identity(seen.path, seen.follow) !== seen.seen) return false;
  return true;
}

/**
 * One git-directory discovery per workspace. Each folder the scan reads and each link or pointer
 * file it follows is stat-ed just BEFORE it is read; the scan is reused only while every one of
 * them still has the same inode, times and size (a `.git` made, moved, removed or renamed
 * anywhere changes its parent folder's times, a rewritten pointer file its own), so a reused scan
 * is exactly what a fresh one would find: changes made by commands, edits or anyone outside the
 * agent are all seen, without trusting any report. A folder whose times are too close to the
 * scan (the racy window) makes that scan single-use.
 */
export function createGitDirectoryCache(limits = { maxWorkspaces: 64 }): GitDirectoryCache {
  const entries = new Map<string, Entry>();
  let generation = 0;
  const scan = async (root: string): Promise<CurrentGitScan> => {
    const observed: Observed[] = [];
    let racy = false;
    const startedNs = BigInt(Date.now()) * 1_000_000n;
    const note = (path: string, follow: boolean) => {
      const seen = identity(path, follow);
      observed.push({ path, follow, seen });
      const times = seen.split(":");
      const newest = times.length === 6 ? (BigInt(times[4]) > BigInt(times[5]) ? BigInt(times[4]) : BigInt(times[5])) : 0n;
      if (newest >= startedNs - racyWindowNs) racy = true;
    };
    let leftOut = 0;
    const found = await findGitDirectories(root, {
      observer: {
        leftOut: () => {
          leftOut += 1;
        },
        folder: (path) => note(path, false),
        followed: (path) => {
          note(path, false);
          note(path, true);
        },
      },
    });
    generation += 1;
    const result: CurrentGitScan = { ...found, generation, leftOut };
    entries.delete(root);
    if (!racy) {
      entries.set(root, { scan: result, observed });
      if (entries.size > limits.maxWorkspaces) entries.delete(entries.keys().next().value as string);
    }
    return result;
  };
  return {
    async current(root) {
      const entry = entries.get(root);
      if (entry !== undefined && stillHolds(entry)) return entry.scan;
      return scan(root);
    },
    invalidate(root) {
      entries.delete(root);
    },
  };
}
