import { describe, expect, it } from "vitest";
import type { ObjectStore } from "../git/object-store.js";
import { emptyTreeOid, type TreeEntry } from "../git/git-objects.js";
import { compareTrees } from "./compare-trees.js";
import type { DirNode, TreeNode } from "./stat-cache-tree.js";

const id = (n: number) => n.toString(16).padStart(40, "0");
const file = (oid: string): TreeNode => ({ kind: "file", mode: "100644", size: 1, mtimeMs: 1, ctimeMs: 1, ino: 1, oid });
const dir = (children: Record<string, TreeNode>, oid?: string): DirNode => ({ kind: "dir", children: new Map(Object.entries(children)), ...(oid ? { oid } : {}) });

/** A store holding only the given trees; reading any other (a subtree equal on both sides) fails the test. */
function storeOf(trees: Record<string, TreeEntry[]>): ObjectStore {
  return { readTree: async (oid: string) => trees[oid] ?? Promise.reject(new Error(`tree ${oid} should not be opened`)) } as unknown as ObjectStore;
}

describe("compareTrees", () => {
  it("lists what differs between a stored and a scanned tree in path order, opening only folders whose ids differ", async () => {
    const store = storeOf({
      [id(100)]: [
        { name: "a.txt", mode: "100644", oid: id(1) },
        { name: "b", mode: "40000", oid: id(101) },
        { name: "c.txt", mode: "100644", oid: id(4) },
        { name: "z", mode: "40000", oid: id(102) },
      ],
      [id(101)]: [
        { name: "x", mode: "100644", oid: id(2) },
        { name: "y", mode: "100644", oid: id(3) },
      ],
    });
    // Scanned children in walk order, not name order; a skipped path and an empty folder are not tree entries.
    const scanned = dir({
      "d.txt": file(id(8)),
      z: dir({ q: file(id(9)) }, id(102)),
      c: dir({ k: file(id(7)) }),
      s: { kind: "skipped", reason: "too large" },
      e: dir({}, emptyTreeOid),
      b: dir({ y: file(id(5)), w: file(id(6)), x: file(id(2)) }),
      "a.txt": file(id(1)),
    });
    const changes = await compareTrees(store, { kind: "stored", oid: id(100) }, { kind: "scanned", node: scanned });
    expect(changes.map((c) => [c.path, c.status, c.before?.oid ?? null, c.after?.oid ?? null])).toEqual([
      ["b/w", "added", null, id(6)],
      ["b/y", "modified", id(3), id(5)],
      ["c/k", "added", null, id(7)],
      ["c.txt", "deleted", id(4), null],
      ["d.txt", "added", null, id(8)],
    ]);
    // The other way round: the same paths, before and after swapped.
    const back = await compareTrees(store, { kind: "scanned", node: scanned }, { kind: "stored", oid: id(100) });
    expect(back.map((c) => [c.path, c.status])).toEqual([
      ["b/w", "deleted"],
      ["b/y", "modified"],
      ["c/k", "deleted"],
      ["c.txt", "added"],
      ["d.txt", "deleted"],
    ]);
  });
});
