import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileRules, parseIgnoreRule } from "./exclude-rules.js";
import { normalizeChangedPath, scanChangedPaths } from "./scan-changed-paths.js";
import { scanWorkspace, type ObjectSink, type ScanOptions } from "./scan-workspace.js";
import { collectSkipped, forEachFile } from "./stat-cache.js";
import { emptyDir, type DirNode } from "./stat-cache-tree.js";
import { hashObject } from "../git/git-objects.js";
import { useTempDirs } from "../../test/temp-dirs.js";

const tempDir = useTempDirs();

class MemorySink implements ObjectSink {
  writes: { type: string; oid: string }[] = [];
  async write(type: "blob" | "tree" | "commit", content: Uint8Array, knownOid?: string) {
    const oid = knownOid ?? hashObject(type, content);
    expect(hashObject(type, content)).toBe(oid);
    this.writes.push({ type, oid });
    return oid;
  }
}

function options(workspace: string, sink: ObjectSink, extra: Partial<ScanOptions> = {}): ScanOptions {
  const patterns = ["node_modules", "dist/"];
  return {
    workspace,
    excludes: compileRules(
      patterns.map((p) => parseIgnoreRule(p)!),
      patterns,
    ),
    respectGitignore: false,
    maxFileBytes: 10_000,
    sink,
    signal: new AbortController().signal,
    // A scan clock a minute ahead: every file looks old, none is "racy".
    now: () => Date.now() + 60_000,
    ...extra,
  };
}

/** The tree id git computes for the same files (its own index in a temp dir). */
function gitTreeId(workspace: string, excludes: string[]): string {
  const gitdir = tempDir("aide-gitref-");
  execFileSync("git", ["init", "-q", "--bare", gitdir]);
  writeFileSync(join(gitdir, "info", "exclude"), excludes.join("\n") + "\n");
  const env = { ...process.env, GIT_DIR: gitdir, GIT_WORK_TREE: workspace };
  execFileSync("git", ["-c", "core.bare=false", "add", "-A"], { env });
  return execFileSync("git", ["-c", "core.bare=false", "write-tree"], { env }).toString().trim();
}

function nastyTree(ws: string) {
  mkdirSync(join(ws, "src", "deep", "er"), { recursive: true });
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(ws, "src", "deep", "er", "b.bin"), Buffer.from([0, 1, 2, 255, 254, 0]));
  writeFileSync(join(ws, "empty"), "");
  writeFileSync(join(ws, "crlf.txt"), "one\r\ntwo\r\n");
  writeFileSync(join(ws, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff]));
  writeFileSync(join(ws, "héllo wörld 日本.txt"), "unicode\n");
  writeFileSync(join(ws, "run.sh"), "#!/bin/sh\necho hi\n");
  chmodSync(join(ws, "run.sh"), 0o755);
  symlinkSync("src/a.ts", join(ws, "link-to-file"));
  symlinkSync("src", join(ws, "link-to-dir"));
  symlinkSync("does/not/exist", join(ws, "dangling"));
  mkdirSync(join(ws, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(ws, "node_modules", "pkg", "index.js"), "excluded\n");
  mkdirSync(join(ws, "dist"));
  writeFileSync(join(ws, "dist", "out.js"), "excluded\n");
  mkdirSync(join(ws, "emptydir"));
  writeFileSync(join(ws, "big.dat"), Buffer.alloc(20_000, 1));
  mkdirSync(join(ws, ".aide"));
  writeFileSync(join(ws, ".aide", "x"), "never\n");
}

describe("scanWorkspace", () => {
  it("computes the same tree id as git for a tree of awkward files", async () => {
    const ws = tempDir("aide-scan-");
    nastyTree(ws);
    const sink = new MemorySink();
    const { root } = await scanWorkspace(emptyDir(), options(ws, sink));
    // git sees big.dat (no size limit there): exclude it on git's side to compare.
    expect(root.oid).toBe(gitTreeId(ws, ["node_modules", "dist/", ".aide", "big.dat"]));
    expect(collectSkipped(root)).toEqual([{ path: "big.dat", reason: "larger than 10000 bytes (20000)" }]);
    const paths: string[] = [];
    forEachFile(root, (p) => paths.push(p));
    expect(paths).not.toContain("node_modules/pkg/index.js");
    expect(paths.some((p) => p.startsWith(".aide"))).toBe(false);
    expect(paths).toContain("link-to-dir");
    expect(paths).not.toContain("link-to-dir/a.ts");
  });

  it("captures a nested repository's files as plain files and never its .git", async () => {
    const ws = tempDir("aide-scan-");
    mkdirSync(join(ws, "vendor", "lib"), { recursive: true });
    writeFileSync(join(ws, "vendor", "lib", "lib.c"), "int x;\n");
    execFileSync("git", ["init", "-q", join(ws, "vendor", "lib")]);
    writeFileSync(join(ws, "sub.git-file"), "x");
    mkdirSync(join(ws, "wt"));
    writeFileSync(join(ws, "wt", ".git"), "gitdir: /elsewhere\n");
    writeFileSync(join(ws, "wt", "f"), "f\n");
    mkdirSync(join(ws, "wt", ".aide", "checkpoints"), { recursive: true });
    writeFileSync(join(ws, "wt", ".aide", "checkpoints", "pack"), "a nested workspace's shadow repository\n");
    const { root } = await scanWorkspace(emptyDir(), options(ws, new MemorySink()));
    const paths: string[] = [];
    forEachFile(root, (p) => paths.push(p));
    expect(paths.sort()).toEqual(["sub.git-file", "vendor/lib/lib.c", "wt/f"]);
  });

  it("rescans nothing when nothing changed and only what changed otherwise", async () => {
    const ws = tempDir("aide-scan-");
    nastyTree(ws);
    // A scan clock at 0: every file is newer than the scan, so its stat cannot be trusted next time.
    const first = await scanWorkspace(emptyDir(), options(ws, new MemorySink(), { now: () => 0 }));
    let racy = 0;
    forEachFile(first.root, (_p, node) => {
      if (node.racy) racy++;
    });
    expect(racy).toBeGreaterThan(5);
    const sink = new MemorySink();
    const again = await scanWorkspace(first.root, options(ws, sink));
    // The racy files were read again, but nothing new was stored.
    expect(again.root.oid).toBe(first.root.oid);
    expect(again.root).not.toBe(first.root);
    expect(sink.writes).toEqual([]);
    const quiet = await scanWorkspace(again.root, options(ws, new MemorySink()));
    expect(quiet.root).toBe(again.root);
    expect(quiet.changes).toBe(0);

    writeFileSync(join(ws, "src", "a.ts"), "export const a = 2;\n");
    const edited = new MemorySink();
    const next = await scanWorkspace(quiet.root, options(ws, edited));
    expect(next.changes).toBe(1);
    expect(edited.writes.map((w) => w.type).sort()).toEqual(["blob", "tree", "tree"]);
    expect(next.root.children.get("node_modules")).toBeUndefined();
  });

  it("does not read a folder again while its stat matches the last listing, and still sees every name added, removed or renamed", async () => {
    const ws = tempDir("aide-scan-");
    mkdirSync(join(ws, "a", "b"), { recursive: true });
    writeFileSync(join(ws, "a", "x.txt"), "x\n");
    writeFileSync(join(ws, "a", "b", "y.txt"), "y\n");
    mkdirSync(join(ws, "node_modules"));
    // The real clock: a folder changed within the racy window is listed again next time, so let
    // every change age past it before the scan that should trust it.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    const same = options(ws, new MemorySink(), { now: () => Date.now() });
    const scan = async (previous: DirNode, scanOptions: ScanOptions = same) => {
      const result = await scanWorkspace(previous, scanOptions);
      const paths: string[] = [];
      forEachFile(result.root, (p) => paths.push(p));
      return { ...result, paths: paths.sort() };
    };
    await settle();
    const first = await scan(emptyDir());
    expect(first.listedFolders).toBe(3);
    const quiet = await scan(first.root);
    expect(quiet.listedFolders).toBe(0);
    expect(quiet.root).toBe(first.root);

    // An edit inside a file does not touch its folder: the file's own lstat finds it.
    writeFileSync(join(ws, "a", "x.txt"), "x, longer now\n");
    await settle();
    const edited = await scan(quiet.root);
    expect(edited.listedFolders).toBe(0);
    expect(edited.changes).toBe(1);

    writeFileSync(join(ws, "a", "b", "new.txt"), "new\n");
    await settle();
    const added = await scan(edited.root);
    expect(added.listedFolders).toBe(1);
    expect(added.paths).toEqual(["a/b/new.txt", "a/b/y.txt", "a/x.txt"]);

    renameSync(join(ws, "a", "b", "new.txt"), join(ws, "a", "renamed.txt"));
    await settle();
    const renamed = await scan(added.root);
    expect(renamed.listedFolders).toBe(2);
    expect(renamed.paths).toEqual(["a/b/y.txt", "a/renamed.txt", "a/x.txt"]);

    unlinkSync(join(ws, "a", "b", "y.txt"));
    writeFileSync(join(ws, "node_modules", "excluded.js"), "still excluded\n");
    await settle();
    const removed = await scan(renamed.root);
    expect(removed.listedFolders).toBe(1);
    expect(removed.paths).toEqual(["a/renamed.txt", "a/x.txt"]);
    expect(removed.root.oid).toBe(gitTreeId(ws, ["node_modules"]));

    // Another set of exclude rules, or .gitignore files in play: a listing is not trusted.
    expect((await scan(removed.root, options(ws, new MemorySink(), { now: () => Date.now() }))).listedFolders).toBe(3);
    const gitignore = options(ws, new MemorySink(), { now: () => Date.now(), respectGitignore: true });
    const withGitignore = await scan(removed.root, gitignore);
    expect((await scan(withGitignore.root, gitignore)).listedFolders).toBe(3);
  });

  it("changed paths give the same tree as a full walk", async () => {
    const ws = tempDir("aide-scan-");
    nastyTree(ws);
    const clock = { now: () => 0 };
    const base = await scanWorkspace(emptyDir(), options(ws, new MemorySink(), clock));
    writeFileSync(join(ws, "src", "a.ts"), "changed\n");
    unlinkSync(join(ws, "crlf.txt"));
    mkdirSync(join(ws, "newdir", "inner"), { recursive: true });
    writeFileSync(join(ws, "newdir", "inner", "n.txt"), "n\n");
    chmodSync(join(ws, "run.sh"), 0o644);
    rmSync(join(ws, "src", "deep"), { recursive: true });
    writeFileSync(join(ws, "node_modules", "pkg", "new.js"), "excluded\n");
    const changed = ["src/a.ts", "./crlf.txt", "newdir/inner/n.txt", "run.sh", "src/deep/er/b.bin", "node_modules/pkg/new.js", "../escape", "/abs"];
    const fast = await scanChangedPaths(base.root, changed, options(ws, new MemorySink(), clock));
    const full = await scanWorkspace(base.root, options(ws, new MemorySink(), clock));
    expect(fast.root.oid).toBe(full.root.oid);
    expect(fast.changes).toBe(full.changes);
    expect(fast.root.oid).toBe(gitTreeId(ws, ["node_modules", "dist/", ".aide", "big.dat"]));
    // The previous state was not mutated.
    expect((base.root.children.get("src") as DirNode).children.has("deep")).toBe(true);
  });

  it("normalizes caller paths and rejects escapes", () => {
    expect(normalizeChangedPath("./a//b/")).toBe("a/b");
    expect(normalizeChangedPath("a\\b")).toBe("a/b");
    expect(normalizeChangedPath("../x")).toBeUndefined();
    expect(normalizeChangedPath("a/../../x")).toBeUndefined();
    expect(normalizeChangedPath("/etc/passwd")).toBeUndefined();
    expect(normalizeChangedPath("")).toBeUndefined();
  });

  it("honours .gitignore files when asked", async () => {
    const ws = tempDir("aide-scan-");
    writeFileSync(join(ws, ".gitignore"), "*.log\n!keep.log\n");
    mkdirSync(join(ws, "sub"));
    writeFileSync(join(ws, "sub", ".gitignore"), "local.txt\n");
    for (const f of ["a.log", "keep.log", "sub/local.txt", "sub/other.txt", "local.txt"]) writeFileSync(join(ws, f), f);
    const { root } = await scanWorkspace(emptyDir(), options(ws, new MemorySink(), { respectGitignore: true }));
    const paths: string[] = [];
    forEachFile(root, (p) => paths.push(p));
    expect(paths.sort()).toEqual([".gitignore", "keep.log", "local.txt", "sub/.gitignore", "sub/other.txt"]);
    expect(root.oid).toBe(gitTreeId(ws, []));
  });

  it("never opens a FIFO (it would block): lists it as skipped", async () => {
    const ws = tempDir("aide-scan-");
    writeFileSync(join(ws, "a.txt"), "a\n");
    execFileSync("mkfifo", [join(ws, "pipe")]);
    const { root } = await scanWorkspace(emptyDir(), options(ws, new MemorySink()));
    expect(collectSkipped(root)).toEqual([{ path: "pipe", reason: "not a regular file, folder or symlink" }]);
  });

  it("stops with the signal's reason", async () => {
    const ws = tempDir("aide-scan-");
    nastyTree(ws);
    const controller = new AbortController();
    controller.abort(new Error("too slow"));
    await expect(scanWorkspace(emptyDir(), options(ws, new MemorySink(), { signal: controller.signal }))).rejects.toThrow("too slow");
  });
});

describe("workspaceRelative", () => {
  it("accepts relative paths and absolute ones inside the workspace, and gives up on anything else", async () => {
    const { workspaceRelative } = await import("../checkpoint-context.js");
    expect(workspaceRelative("/ws", ["a/b", "/ws/c/d", "./e"])).toEqual(["a/b", "c/d", "e"]);
    expect(workspaceRelative("/ws", ["a", "/elsewhere/x"])).toBeUndefined();
    expect(workspaceRelative("/ws", ["/ws2/x"])).toBeUndefined();
    expect(workspaceRelative("/ws", ["../x"])).toBeUndefined();
    expect(workspaceRelative("/ws", ["/ws"])).toBeUndefined();
  });
});
