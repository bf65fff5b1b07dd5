import { mkdtempSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadStatCache, saveStatCache } from "./stat-cache.js";
import type { DirNode } from "./stat-cache-tree.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("stat cache", () => {
  it("round-trips files, folders and skipped entries through an atomic write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-cache-"));
    dirs.push(dir);
    const path = join(dir, "cache.json");
    const oid = "a".repeat(40);
    const root: DirNode = {
      kind: "dir",
      oid: "b".repeat(40),
      children: new Map([
        ["f.txt", { kind: "file", mode: "100755", size: 3, mtimeMs: 1732950000123.4567, ctimeMs: 2.25, ino: 7, oid, racy: true }],
        ["tab\there\nnew \\ line", { kind: "file", mode: "120000", size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, oid }],
        ['"quoted', { kind: "file", mode: "100644", size: 1, mtimeMs: 1, ctimeMs: 1, ino: 1, oid }],
        ["héllo 日本", { kind: "dir", children: new Map() }],
        ["sub", { kind: "dir", oid: "c".repeat(40), children: new Map([["big", { kind: "skipped", reason: "too large" }]]) }],
      ]),
    };
    await saveStatCache(path, { commit: "d".repeat(40), root });
    expect(readdirSync(dir)).toEqual(["cache.json"]);
    const loaded = await loadStatCache(path);
    expect(loaded.commit).toBe("d".repeat(40));
    expect(loaded.root).toEqual(root);
  });

  it("treats a missing or damaged file as empty", async () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-cache-"));
    dirs.push(dir);
    expect((await loadStatCache(join(dir, "missing.json"))).root.children.size).toBe(0);
    const oid = "a".repeat(40);
    writeFileSync(join(dir, "bad"), `aide-stat-cache 2\t-\nd\t\t-\nf\tx\t100644\t1\t2\t3\t4\tnothex\t0\nu\n`);
    expect((await loadStatCache(join(dir, "bad"))).root.children.size).toBe(0);
    writeFileSync(join(dir, "cut"), `aide-stat-cache 2\t-\nd\t\t-\nf\tx\t100644\t1\t2\t3\t4\t${oid}\t0\n`);
    expect((await loadStatCache(join(dir, "cut"))).root.children.size).toBe(0);
    writeFileSync(join(dir, "old.json"), '{"version":1,"root":{"c":{}}}');
    expect((await loadStatCache(join(dir, "old.json"))).root.children.size).toBe(0);
  });
});
