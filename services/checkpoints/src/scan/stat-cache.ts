/**
 * The stat cache file: loaded at the first commit of a workspace, saved (temp + rename) after
 * commits; plus the walks over its tree that commits and restores share.
 */
import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { parseStatCache, serializeStatCache } from "./stat-cache-format.js";
import { emptyCache, type DirNode, type FileNode, type StatCache } from "./stat-cache-tree.js";

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
