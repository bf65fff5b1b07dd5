import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileRules } from "../scan/exclude-rules.js";
import { scanWorkspace } from "../scan/scan-workspace.js";
import { emptyDir, type DirNode } from "../scan/stat-cache-tree.js";
import { ObjectStore } from "./object-store.js";
import { PackWriter } from "./pack-writer.js";
import { useTempDirs } from "../../test/temp-dirs.js";

const tempDir = useTempDirs();

function treeIds(dir: DirNode, out: string[] = []): string[] {
  out.push(dir.oid!);
  for (const child of dir.children.values()) if (child.kind === "dir") treeIds(child, out);
  return out;
}

describe("the tree cache filled by a scan's writer", () => {
  it("holds, for every tree a scan encoded, the entries a decode of the stored object gives, and serves them without opening a pack", async () => {
    const ws = tempDir("aide-treecache-ws-");
    mkdirSync(join(ws, "src", "deep"), { recursive: true });
    mkdirSync(join(ws, "src", "deep-er"), { recursive: true });
    writeFileSync(join(ws, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(ws, "src", "deep", "b.txt"), "b\n");
    writeFileSync(join(ws, "src", "deep-er", "c.txt"), "c\n");
    writeFileSync(join(ws, "src", "deep.txt"), "ordered between deep/ and deep-er/ as git orders them\n");
    writeFileSync(join(ws, "run.sh"), "#!/bin/sh\n");
    chmodSync(join(ws, "run.sh"), 0o755);
    symlinkSync("src/a.ts", join(ws, "link"));
    writeFileSync(Buffer.from(`${ws}/raw-\xff-name`, "latin1"), "a name that is not UTF-8\n");
    const gitdir = tempDir("aide-treecache-git-");
    execFileSync("git", ["init", "-q", "--bare", gitdir]);
    const packDir = join(gitdir, "objects", "pack");
    const writer = new PackWriter(packDir, 1);
    const scan = await scanWorkspace(emptyDir(), {
      workspace: ws,
      excludes: compileRules([], []),
      respectGitignore: false,
      maxFileBytes: 1_000_000,
      sink: writer,
      signal: new AbortController().signal,
      now: () => Date.now() + 60_000,
    });
    const names = await writer.finish();
    const cached = new ObjectStore(gitdir);
    for (const name of names) cached.addPack(name);
    cached.rememberTrees(writer.takeTrees());
    const oids = treeIds(scan.root);
    expect(oids.length).toBe(4);

    // With the pack moved away, the remembered trees are still read: no pack is opened for them.
    const packs = readdirSync(packDir).filter((file) => file.endsWith(".pack"));
    for (const pack of packs) renameSync(join(packDir, pack), join(gitdir, pack));
    const fromCache = await Promise.all(oids.map((oid) => cached.readTree(oid)));
    for (const pack of packs) renameSync(join(gitdir, pack), join(packDir, pack));

    // A fresh store decodes the same trees from the pack: the same entries, in the same order.
    const decoding = new ObjectStore(gitdir);
    const decoded = await Promise.all(oids.map((oid) => decoding.readTree(oid)));
    expect(fromCache).toEqual(decoded);
    expect(decoded[0].map((entry) => entry.mode)).toContain("120000");
    expect(decoded[0].find((entry) => entry.name === "run.sh")?.mode).toBe("100755");
    // And git agrees the store holds them.
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"]);
    for (const oid of oids) expect(execFileSync("git", ["--git-dir", gitdir, "cat-file", "-t", oid]).toString().trim()).toBe("tree");
  });

  it("forgets what a discarded writer was told", async () => {
    const gitdir = tempDir("aide-treecache-discard-");
    const writer = new PackWriter(join(gitdir, "objects", "pack"), 1);
    writer.knowTree("4b825dc642cb6eb9a060e54bf8d69288fbee4904", []);
    writer.discard();
    expect(writer.takeTrees().size).toBe(0);
  });
});
