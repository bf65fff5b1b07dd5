import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import type { EntryMode } from "./git-objects.js";
import { parseStatCache, serializeStatCache } from "./stat-cache-format.js";

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

/** Loads the cache; a missing or damaged file gives an empty cache (everything is hashed again). */
export async function loadStatCache(path: string): Promise<StatCache> {
  try {
    return parseStatCache(await readFile(path, "utf8"));
  } catch {
    return emptyCache();
  }
}

/** Writes the cache atomically: a temp file renamed over the old one. */
export async function saveStatCache(path: string, cache: StatCache): Promise<void> {
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await writeFile(temp, serializeStatCache(cache));
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Visits every captured file below `dir` with its workspace-relative path. */
export function forEachFile(dir: DirNode, visit: (path: string, node: FileNode) => void, prefix = ""): void {
  for (const [name, node] of dir.children) {
    const path = prefix === "" ? name : `${prefix}/${name}`;
    if (node.kind === "dir") forEachFile(node, visit, path);
    else if (node.kind === "file") visit(path, node);
  }
}

export function collectSkipped(dir: DirNode, out: { path: string; reason: string }[] = [], prefix = ""): { path: string; reason: string }[] {
  for (const [name, node] of dir.children) {
    const path = prefix === "" ? name : `${prefix}/${name}`;
    if (node.kind === "dir") collectSkipped(node, out, path);
    else if (node.kind === "skipped") out.push({ path, reason: node.reason });
  }
  return out;
}
