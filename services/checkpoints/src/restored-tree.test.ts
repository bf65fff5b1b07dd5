import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ObjectStore } from "./git/object-store.js";
import { PackWriter } from "./git/pack-writer.js";
import { treeFromTarget } from "./restored-tree.js";
import { compareTrees } from "./scan/compare-trees.js";
import { compileRules } from "./scan/exclude-rules.js";
import { mergeFileNodes } from "./scan/scan-changed-paths.js";
import { fileNodeOf, scanWorkspace, writeTreeOf, type ObjectSink } from "./scan/scan-workspace.js";
import { emptyDir, type DirNode, type FileNode } from "./scan/stat-cache-tree.js";
import { hashObject } from "./git/git-objects.js";
import { useTempDirs } from "../test/temp-dirs.js";

const tempDir = useTempDirs();

const files: Record<string, string> = { "a/b/x.txt": "x\n", "a/y.txt": "y\n", "c/z.txt": "z\n", "d/w.txt": "w\n", "top.txt": "top\n" };

/** Folder path → tree id, for every folder of a scanned tree. */
function folderIds(dir: DirNode, prefix = "", out: Record<string, string> = {}): Record<string, string> {
  out[prefix] = dir.oid!;
  for (const [name, child] of dir.children) if (child.kind === "dir") folderIds(child, prefix === "" ? name : `${prefix}/${name}`, out);
  return out;
}

const noWrites: ObjectSink = { write: async (type, content, knownOid) => knownOid ?? hashObject(type, content) };

async function setUp() {
  const ws = tempDir("aide-restored-ws-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(ws, path, ".."), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
  const gitdir = tempDir("aide-restored-git-");
  execFileSync("git", ["init", "-q", "--bare", gitdir]);
  const store = new ObjectStore(gitdir);
  const scan = async (previous: DirNode) => {
    const writer = new PackWriter(store.packDirectory, 1);
    const result = await scanWorkspace(previous, {
      workspace: ws,
      excludes: compileRules([], []),
      respectGitignore: false,
      maxFileBytes: 1_000_000,
      sink: writer,
      signal: new AbortController().signal,
      now: () => Date.now() + 60_000,
    });
    for (const name of await writer.finish()) store.addPack(name);
    store.rememberTrees(writer.takeTrees());
    return result.root;
  };
  const target = await scan(emptyDir());
  writeFileSync(join(ws, "a/b/x.txt"), "x changed\n");
  writeFileSync(join(ws, "c/z.txt"), "z changed, longer\n");
  const current = await scan(target);
  const changes = await compareTrees(store, { kind: "stored", oid: target.oid! }, { kind: "scanned", node: current });
  // What the restore does: the target's bytes back, each file's node from its own stat.
  const known = new Map<string, FileNode>();
  for (const change of changes) {
    writeFileSync(join(ws, change.path), files[change.path]);
    known.set(change.path, fileNodeOf(lstatSync(join(ws, change.path)), change.before!.oid, Date.now()));
  }
  return { ws, store, scan, target, current, changes, known };
}

describe("treeFromTarget", () => {
  it("gives every folder on the restored paths the target's tree id, the ids a rebuild of those folders computes", async () => {
    const { store, target, current, changes, known, scan } = await setUp();
    expect(changes.map((c) => c.path)).toEqual(["a/b/x.txt", "c/z.txt"]);
    const restored = await treeFromTarget(store, target.oid!, current, changes, known);
    expect(restored).toBeDefined();
    const rebuilt = mergeFileNodes(current, known);
    rebuilt.oid = await writeTreeOf(noWrites, rebuilt);
    expect(folderIds(restored!)).toEqual(folderIds(rebuilt));
    expect(folderIds(restored!)).toEqual(folderIds(target));
    // The scanned tree it started from is left as it was (copy on write).
    expect(current.oid).not.toBe(target.oid);
    // A walk of the working tree from the restored cache finds the target's tree.
    expect((await scan(restored!)).oid).toBe(target.oid);
  });

  it("declines (the caller rebuilds) when a written file's mode is not the target's, a file is missing from the written ones, or a change is a removal", async () => {
    const { store, target, current, changes, known } = await setUp();
    const wrongMode = new Map(known);
    wrongMode.set("c/z.txt", { ...known.get("c/z.txt")!, mode: "100755" });
    expect(await treeFromTarget(store, target.oid!, current, changes, wrongMode)).toBeUndefined();
    const missing = new Map(known);
    missing.delete("c/z.txt");
    expect(await treeFromTarget(store, target.oid!, current, changes, missing)).toBeUndefined();
    const withRemoval = [...changes, { path: "d/new.txt", status: "added" as const, after: { mode: "100644" as const, oid: changes[0].before!.oid } }];
    expect(await treeFromTarget(store, target.oid!, current, withRemoval, known)).toBeUndefined();
  });
});
