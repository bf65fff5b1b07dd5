import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { z } from "zod";
import type { EntryMode } from "./git-objects.js";

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

const Oid = z.string().regex(/^[0-9a-f]{40}$/);
const SerializedFile = z.tuple([z.enum(["100644", "100755", "120000"]), z.number(), z.number(), z.number(), z.number(), Oid, z.number().optional()]);
type SerializedSkipped = { s: string };
type SerializedDir = { o?: string; c: Record<string, SerializedDir | SerializedSkipped | z.infer<typeof SerializedFile>> };
const SerializedDirSchema: z.ZodType<SerializedDir> = z.lazy(() =>
  z.object({ o: Oid.optional(), c: z.record(z.string(), z.union([SerializedFile, z.object({ s: z.string() }).strict(), SerializedDirSchema])) }),
);
const CacheFileSchema = z.object({ version: z.literal(1), commit: Oid.optional(), root: SerializedDirSchema });

function serializeDir(dir: DirNode): SerializedDir {
  const c: SerializedDir["c"] = {};
  for (const [name, node] of dir.children) {
    if (node.kind === "skipped") { c[name] = { s: node.reason }; continue; }
    c[name] = node.kind === "dir" ? serializeDir(node) : [node.mode, node.size, node.mtimeMs, node.ctimeMs, node.ino, node.oid, ...(node.racy ? [1] : [])] as z.infer<typeof SerializedFile>;
  }
  return dir.oid === undefined ? { c } : { o: dir.oid, c };
}

function deserializeDir(serialized: SerializedDir): DirNode {
  const dir: DirNode = { kind: "dir", children: new Map(), oid: serialized.o };
  for (const [name, value] of Object.entries(serialized.c)) {
    if (Array.isArray(value)) {
      const [mode, size, mtimeMs, ctimeMs, ino, oid, racy] = value;
      dir.children.set(name, { kind: "file", mode, size, mtimeMs, ctimeMs, ino, oid, ...(racy ? { racy: true } : {}) });
    } else if ("s" in value) dir.children.set(name, { kind: "skipped", reason: String(value.s) });
    else dir.children.set(name, deserializeDir(value as SerializedDir));
  }
  return dir;
}

/** Loads the cache; a missing or damaged file gives an empty cache (everything is hashed again). */
export async function loadStatCache(path: string): Promise<StatCache> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return emptyCache();
  }
  try {
    const parsed = CacheFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return emptyCache();
    return { commit: parsed.data.commit, root: deserializeDir(parsed.data.root) };
  } catch {
    return emptyCache();
  }
}

/** Writes the cache atomically: a temp file renamed over the old one. */
export async function saveStatCache(path: string, cache: StatCache): Promise<void> {
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const body = JSON.stringify({ version: 1, ...(cache.commit ? { commit: cache.commit } : {}), root: serializeDir(cache.root) });
  try {
    await writeFile(temp, body);
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
