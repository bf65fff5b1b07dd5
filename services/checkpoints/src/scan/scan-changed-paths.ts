/** The scan of only the paths a caller says changed. */
import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import { checkSignal, countFiles, isAlwaysExcluded, isExcluded, newScanState, scanEntry, writeTreeOf, type ScanOptions, type ScanResult } from "./scan-workspace.js";
import type { DirNode, FileNode, TreeNode } from "./stat-cache-tree.js";
import { fsPath } from "../git/raw-names.js";

/** Checks a caller-supplied path: workspace-relative, no `..`, no empty segments. */
export function normalizeChangedPath(path: string): string | undefined {
  const trimmed = path
    .replace(/\\/g, "/")
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "");
  if (trimmed === "" || trimmed === "." || trimmed.startsWith("/")) return undefined;
  const segments = trimmed.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.some((s) => s === "..")) return undefined;
  return segments.join("/");
}

/**
 * Updates only the given paths (the caller knows nothing else changed): copies the folders on
 * each path, rescans the first entry the cache does not know as a folder, and rebuilds the
 * trees above. Unknown or invalid paths fall back to the walk only for themselves.
 */
export async function scanChangedPaths(previous: DirNode, paths: readonly string[], options: ScanOptions): Promise<ScanResult> {
  const state = newScanState(options);
  const root = copyOf(previous);
  const copied = new Set<DirNode>([root]);
  const units = new Set<string>();
  for (const raw of paths) {
    const path = normalizeChangedPath(raw);
    if (path === undefined) continue;
    const segments = path.split("/");
    let node: TreeNode | undefined = previous;
    let depth = 0;
    while (depth < segments.length - 1 && node?.kind === "dir") {
      node = node.children.get(segments[depth]);
      if (node?.kind !== "dir") break;
      depth++;
    }
    units.add(segments.slice(0, depth + 1).join("/"));
  }
  for (const unit of [...units].sort()) {
    checkSignal(state.signal);
    const segments = unit.split("/");
    let dir = root;
    let relativeDir = "";
    let excluded = false;
    for (const name of segments.slice(0, -1)) {
      if (isExcluded(state, relativeDir, name, true)) {
        excluded = true;
        break;
      }
      dir = writableChild(dir, name, copied);
      relativeDir = relativeDir === "" ? name : `${relativeDir}/${name}`;
    }
    if (excluded) continue;
    const name = segments[segments.length - 1];
    const before = dir.children.get(name);
    let stats: Stats | undefined;
    try {
      stats = lstatSync(fsPath(state.workspace, unit));
    } catch {
      stats = undefined;
    }
    const node = stats === undefined || isAlwaysExcluded(relativeDir, name) ? undefined : await scanEntry(state, relativeDir, name, stats, before);
    if (node === undefined) {
      if (before !== undefined) {
        removeChild(dir, name);
        state.changes += countFiles(before);
      }
    } else setChild(dir, name, node);
  }
  root.oid = await writeTreeOf(options.sink, root);
  return { root, changes: state.changes, listedFolders: state.listedFolders };
}

/**
 * A copy of a folder to update: the same entries, no tree id (rebuilt once the update is done).
 * Its listing stays while the names do (setChild and removeChild drop it when they change).
 */
function copyOf(dir: DirNode | undefined): DirNode {
  if (dir === undefined) return { kind: "dir", children: new Map() };
  return { kind: "dir", children: new Map(dir.children), ...(dir.listing ? { listing: dir.listing } : {}) };
}

/** Sets an entry of a folder this update owns; a new name means the folder's listing is no longer its names. */
function setChild(dir: DirNode, name: string, node: TreeNode): void {
  if (!dir.children.has(name)) delete dir.listing;
  dir.children.set(name, node);
}

function removeChild(dir: DirNode, name: string): void {
  if (dir.children.delete(name)) delete dir.listing;
}

/**
 * The folder `name` under `dir`, copied once per update so the cached tree it came from stays
 * untouched (copy on write); `copied` holds the folders this update already owns.
 */
function writableChild(dir: DirNode, name: string, copied: Set<DirNode>): DirNode {
  const child = dir.children.get(name);
  if (child?.kind === "dir" && copied.has(child)) return child;
  const copy = copyOf(child?.kind === "dir" ? child : undefined);
  copied.add(copy);
  setChild(dir, name, copy);
  return copy;
}

/**
 * Folds files whose content is known and stored into the tree: the files an abandoned scan
 * already hashed (so the next attempt starts where this one stopped instead of timing out
 * again), or the files a restore just wrote. The folders on each path lose their tree id, so the
 * next scan (or writeTreeOf) rebuilds them.
 */
export function mergeFileNodes(previous: DirNode, progress: Iterable<[string, FileNode]>): DirNode {
  const root = copyOf(previous);
  const copied = new Set<DirNode>([root]);
  for (const [path, node] of progress) {
    const segments = path.split("/");
    let dir = root;
    for (const name of segments.slice(0, -1)) {
      dir = writableChild(dir, name, copied);
    }
    setChild(dir, segments[segments.length - 1], node);
  }
  return root;
}
