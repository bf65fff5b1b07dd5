/** The working tree's cache after a restore that wrote exactly the target's files: folder ids taken from the target, not rebuilt. */
import type { ObjectStore } from "./git/object-store.js";
import type { TreeChange } from "./scan/compare-trees.js";
import { mergeFileNodes } from "./scan/scan-changed-paths.js";
import type { DirNode, FileNode } from "./scan/stat-cache-tree.js";

/**
 * When every difference between the target and the scanned working tree was a file the restore
 * wrote back through its own descriptor (no removal, no link, no temp + rename, none left out as
 * excluded), each with the target's mode and blob, every folder above them now holds exactly the
 * target's entries: its tree id is the target's subtree id. Returns the scanned tree with those
 * files folded in and those ids set (the target's trees are the ones the plan just compared,
 * kept decoded), or undefined when any condition fails: the caller then rebuilds the trees.
 *
 * `changes` must be compareTrees(target, scanned) unfiltered; `known` the written files' nodes.
 */
export async function treeFromTarget(store: ObjectStore, targetTree: string, scanned: DirNode, changes: readonly TreeChange[], known: ReadonlyMap<string, FileNode>): Promise<DirNode | undefined> {
  if (changes.length === 0 || known.size !== changes.length) return undefined;
  for (const change of changes) {
    const node = known.get(change.path);
    if (change.before === undefined || node === undefined || node.oid !== change.before.oid || node.mode !== change.before.mode) return undefined;
  }
  const root = mergeFileNodes(scanned, known);
  return (await adoptTargetIds(store, root, targetTree)) ? root : undefined;
}

/** Sets the id of `dir` and of every folder below it that lost its id in the merge, from the target's tree `oid`. */
async function adoptTargetIds(store: ObjectStore, dir: DirNode, oid: string): Promise<boolean> {
  dir.oid = oid;
  let entries: Map<string, string> | undefined;
  for (const [name, child] of dir.children) {
    if (child.kind !== "dir" || child.oid !== undefined) continue;
    entries ??= new Map((await store.readTree(oid)).filter((entry) => entry.mode === "40000").map((entry) => [entry.name, entry.oid]));
    const childOid = entries.get(name);
    if (childOid === undefined || !(await adoptTargetIds(store, child, childOid))) return false;
  }
  return true;
}
