/** The files that differ between two trees. */
import type { ObjectStore } from "../git/object-store.js";
import { emptyTreeOid, type EntryMode } from "../git/git-objects.js";
import type { DirNode } from "./stat-cache-tree.js";

/** One side of a comparison: a stored tree, or the scanned working tree. */
export type TreeSide = { kind: "stored"; oid: string } | { kind: "scanned"; node: DirNode };

export interface FileVersion {
  mode: Exclude<EntryMode, "40000">;
  oid: string;
}

export interface TreeChange {
  path: string;
  status: "added" | "deleted" | "modified";
  before?: FileVersion;
  after?: FileVersion;
}

interface Entry {
  mode: EntryMode;
  oid: string;
  side?: TreeSide;
}

async function entriesOf(store: ObjectStore, side: TreeSide): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  if (side.kind === "stored") {
    if (side.oid === emptyTreeOid) return out;
    for (const entry of await store.readTree(side.oid)) {
      out.set(entry.name, { mode: entry.mode, oid: entry.oid, side: entry.mode === "40000" ? { kind: "stored", oid: entry.oid } : undefined });
    }
    return out;
  }
  for (const [name, node] of side.node.children) {
    if (node.kind === "skipped") continue;
    if (node.kind === "file") out.set(name, { mode: node.mode, oid: node.oid });
    else if (node.oid !== emptyTreeOid) out.set(name, { mode: "40000", oid: node.oid ?? "", side: { kind: "scanned", node } });
  }
  return out;
}

/**
 * The files that differ between two trees, folders expanded, in path order. Subtrees with the
 * same id on both sides are not opened: the scan's tree ids are git's, so this is cheap.
 */
export async function compareTrees(store: ObjectStore, before: TreeSide | undefined, after: TreeSide | undefined, prefix = "", out: TreeChange[] = []): Promise<TreeChange[]> {
  const left = before ? await entriesOf(store, before) : new Map<string, Entry>();
  const right = after ? await entriesOf(store, after) : new Map<string, Entry>();
  const names = [...new Set([...left.keys(), ...right.keys()])].sort();
  for (const name of names) {
    const path = prefix === "" ? name : `${prefix}/${name}`;
    const a = left.get(name);
    const b = right.get(name);
    if (a && b && a.oid === b.oid && a.mode === b.mode) continue;
    const aTree = a?.mode === "40000";
    const bTree = b?.mode === "40000";
    if (aTree || bTree) {
      await compareTrees(store, aTree ? a?.side : undefined, bTree ? b?.side : undefined, path, out);
    }
    const aFile = a && !aTree ? { mode: a.mode as FileVersion["mode"], oid: a.oid } : undefined;
    const bFile = b && !bTree ? { mode: b.mode as FileVersion["mode"], oid: b.oid } : undefined;
    if (aFile && bFile) out.push({ path, status: "modified", before: aFile, after: bFile });
    else if (aFile) out.push({ path, status: "deleted", before: aFile });
    else if (bFile) out.push({ path, status: "added", after: bFile });
  }
  return out;
}
