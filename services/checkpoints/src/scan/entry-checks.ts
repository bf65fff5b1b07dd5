/** The tests a scan applies to a cached node and a fresh lstat: is it still what the cache says? */
import type { CompiledRules } from "./exclude-rules.js";
import type { EntryStats } from "./stat-claims.js";
import type { DirNode, FileNode, TreeNode } from "./stat-cache-tree.js";

/** What a folder listing is trusted under: the rules it was filtered with, and no `.gitignore` in play. */
export interface ListingRules {
  excludes: CompiledRules;
  respectGitignore: boolean;
}

export function fileMode(stats: EntryStats): FileNode["mode"] {
  if (stats.isSymbolicLink()) return "120000";
  return (stats.mode & 0o100) !== 0 ? "100755" : "100644";
}

/** The cached node still describes the file: same stat, not racy. */
export function statUnchanged(previous: TreeNode | undefined, stats: EntryStats, mode: FileNode["mode"]): boolean {
  return (
    previous?.kind === "file" &&
    !previous.racy &&
    previous.mode === mode &&
    previous.size === stats.size &&
    previous.mtimeMs === stats.mtimeMs &&
    previous.ctimeMs === stats.ctimeMs &&
    previous.ino === stats.ino
  );
}

/** The walk keeps a cached file node as it is (no read, no hash): the condition of its synchronous fast path, but for the exclude rules. */
export function fileStillCached(previous: TreeNode | undefined, stats: EntryStats, maxFileBytes: number): boolean {
  return previous?.kind === "file" && (stats.isFile() ? stats.size <= maxFileBytes : stats.isSymbolicLink()) && statUnchanged(previous, stats, fileMode(stats));
}

/**
 * The cached listing still holds: the folder's stat is the one it was listed with, under the same
 * exclude rules. With `.gitignore` files in play a listing is never reused (an edited
 * `.gitignore` changes what is excluded without touching the folder).
 */
export function listingHolds(rules: ListingRules, previous: DirNode | undefined, stats: EntryStats | undefined): boolean {
  const listing = previous?.listing;
  return (
    listing !== undefined &&
    stats !== undefined &&
    !rules.respectGitignore &&
    listing.rules === rules.excludes &&
    listing.mtimeMs === stats.mtimeMs &&
    listing.ctimeMs === stats.ctimeMs &&
    listing.ino === stats.ino
  );
}
