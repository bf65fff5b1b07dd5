import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeTree, encodeTree, hashObject, sortTreeEntries, type TreeEntry } from "./git-objects.js";

describe("tree objects", () => {
  it("orders, encodes and hashes trees exactly as git mktree does", () => {
    const gitdir = mkdtempSync(join(tmpdir(), "aide-mktree-"));
    try {
      execFileSync("git", ["init", "-q", "--bare", gitdir]);
      const blob = execFileSync("git", ["--git-dir", gitdir, "hash-object", "-w", "--stdin"], { input: "x\n" }).toString().trim();
      const subtree = execFileSync("git", ["--git-dir", gitdir, "mktree"], { input: `100644 blob ${blob}\tinner\n` })
        .toString()
        .trim();
      for (const names of [
        ["a", "a.b", "a-b", "a0", "b", "A"],
        ["é", "z", "日本", "e", "a b", "ü.txt"],
      ]) {
        const entries: TreeEntry[] = names.map((name, i) => (i % 2 === 0 ? { name, mode: "40000", oid: subtree } : { name, mode: i % 3 === 0 ? "100755" : "100644", oid: blob }));
        const sorted = sortTreeEntries([...entries].reverse());
        const content = encodeTree(sorted);
        const input = entries.map((e) => `${e.mode === "40000" ? "040000 tree" : `${e.mode} blob`} ${e.oid}\t${e.name}`).join("\n") + "\n";
        const expected = execFileSync("git", ["--git-dir", gitdir, "mktree"], { input }).toString().trim();
        expect(hashObject("tree", content)).toBe(expected);
        expect(decodeTree(content).map((e) => e.name)).toEqual(sorted.map((e) => e.name));
      }
    } finally {
      rmSync(gitdir, { recursive: true, force: true });
    }
  });
});
