/** The files that differ between two trees. */
import type { ObjectStore } from "../git/object-store.js";
import { emptyTreeOid, type EntryMode, type TreeEntry } from "../git/git-objects.js";
import type { DirNode, FileNode, TreeNode } from "./stat-cache-tree.js";

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

/** One folder's entries by name, read where they are (a decoded tree, a scanned folder's children) rather than copied into a new Map. */
interface Entries {
  /** How many entries there are. */
  size: number;
  /** Visits every entry (no object made per entry). */
  each(visit: (name: string, mode: EntryMode, oid: string) => void): void;
  /** Whether the entry `name` is absent, the same (mode and id) or different. */
  match(name: string, mode: EntryMode, oid: string): "absent" | "same" | "different";
  get(name: string): Entry | undefined;
}

const noEntries: Entries = { size: 0, each: () => {}, match: () => "absent", get: () => undefined };

function storedEntries(entries: readonly TreeEntry[]): Entries {
  let byName: Map<string, TreeEntry> | undefined;
  const find = (name: string) => (byName ??= new Map(entries.map((entry) => [entry.name, entry]))).get(name);
  return {
    size: entries.length,
    each(visit) {
      for (const entry of entries) visit(entry.name, entry.mode, entry.oid);
    },
    match(name, mode, oid) {
      const entry = find(name);
      return entry === undefined ? "absent" : entry.mode === mode && entry.oid === oid ? "same" : "different";
    },
    get(name) {
      const entry = find(name);
      return entry === undefined ? undefined : { mode: entry.mode, oid: entry.oid, side: entry.mode === "40000" ? { kind: "stored", oid: entry.oid } : undefined };
    },
  };
}

/** A scanned node's mode and id as a tree entry; undefined for what a git tree does not hold (skipped paths, empty folders). */
function scannedMode(node: TreeNode | undefined): EntryMode | undefined {
  if (node === undefined || node.kind === "skipped") return undefined;
  if (node.kind === "file") return node.mode;
  return node.oid === emptyTreeOid ? undefined : "40000";
}

const scannedOid = (node: FileNode | DirNode) => node.oid ?? "";

function scannedEntries(dir: DirNode): Entries {
  let size = 0;
  for (const node of dir.children.values()) if (scannedMode(node) !== undefined) size++;
  return {
    size,
    each(visit) {
      for (const [name, node] of dir.children) {
        const mode = scannedMode(node);
        if (mode !== undefined) visit(name, mode, scannedOid(node as FileNode | DirNode));
      }
    },
    match(name, mode, oid) {
      const node = dir.children.get(name);
      const own = scannedMode(node);
      return own === undefined ? "absent" : own === mode && scannedOid(node as FileNode | DirNode) === oid ? "same" : "different";
    },
    get(name) {
      const node = dir.children.get(name);
      const mode = scannedMode(node);
      if (mode === undefined) return undefined;
      return mode === "40000" ? { mode, oid: scannedOid(node as DirNode), side: { kind: "scanned", node: node as DirNode } } : { mode, oid: scannedOid(node as FileNode) };
    },
  };
}

async function entriesOf(store: ObjectStore, side: TreeSide | undefined): Promise<Entries> {
  if (side === undefined) return noEntries;
  if (side.kind === "scanned") return scannedEntries(side.node);
  return side.oid === emptyTreeOid ? noEntries : storedEntries(await store.readTree(side.oid));
}

/** The names whose entries differ (or exist on one side only), sorted: equal entries, most of a folder, are neither copied nor sorted. */
function differingNames(left: Entries, right: Entries): string[] {
  const names: string[] = [];
  let onBoth = 0;
  left.each((name, mode, oid) => {
    const seen = right.match(name, mode, oid);
    if (seen !== "absent") onBoth++;
    if (seen !== "same") names.push(name);
  });
  if (right.size > onBoth) {
    right.each((name, mode, oid) => {
      if (left.match(name, mode, oid) === "absent") names.push(name);
    });
  }
  return names.sort();
}

/**
 * The files that differ between two trees, folders expanded, in path order. Subtrees with the
 * same id on both sides are not opened: the scan's tree ids are git's, so this is cheap.
 */
export async function compareTrees(store: ObjectStore, before: TreeSide | undefined, after: TreeSide | undefined, prefix = "", out: TreeChange[] = []): Promise<TreeChange[]> {
  const left = await entriesOf(store, before);
  const right = await entriesOf(store, after);
  for (const name of differingNames(left, right)) {
    const path = prefix === "" ? name : `${prefix}/${name}`;
    const a = left.get(name);
    const b = right.get(name);
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
