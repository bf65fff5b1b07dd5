/**
 * The tree a scan remembers: per file the stat it was hashed with and its blob id, per folder its
 * tree id. Kept in memory between commits and on disk by stat-cache.ts.
 */
import type { EntryMode } from "../git/git-objects.js";

/** What a file looked like when it was hashed; a file whose stat still matches is not read again. */
export interface FileNode {
  kind: "file";
  mode: Exclude<EntryMode, "40000">;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  oid: string;
  /** Modified so close to the scan that a later change could keep the same stat: hash again. */
  racy?: boolean;
}

export interface DirNode {
  kind: "dir";
  children: Map<string, TreeNode>;
  /** Tree id of this folder's captured content; undefined while something below changed. */
  oid?: string;
  /** When the folder was last listed: while its stat still matches, the names in it are `children`'s. */
  listing?: FolderListing;
}

/**
 * A folder's stat when it was listed, and the exclude rules the listing was filtered with. Adding,
 * removing or renaming an entry changes a folder's mtime and ctime, so while both and the inode
 * match, `children` holds every name the folder has (bar excluded ones) and a scan need not list
 * it again. Kept in memory only (never in the cache file): it is trusted for the same rules
 * object, that is, within the process that listed the folder.
 */
export interface FolderListing {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  rules: object;
}

/** A path seen but not captured (too large, unreadable, not a regular file): left alone by restore. */
export interface SkippedNode {
  kind: "skipped";
  reason: string;
}

export type TreeNode = FileNode | DirNode | SkippedNode;

export interface StatCache {
  /** The checkpoint whose tree `root` last described (informational: every id in `root` exists). */
  commit?: string;
  root: DirNode;
}

export function emptyDir(): DirNode {
  return { kind: "dir", children: new Map() };
}

export function emptyCache(): StatCache {
  return { root: emptyDir() };
}
