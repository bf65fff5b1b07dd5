import { mkdtempSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadStatCache, saveStatCache, type DirNode } from "./stat-cache.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

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
        ["f.txt", { kind: "file", mode: "100755", size: 3, mtimeMs: 1.5, ctimeMs: 2.25, ino: 7, oid, racy: true }],
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
    writeFileSync(join(dir, "bad.json"), '{"version":1,"root":{"c":{"x":["100644",1,2,3,4,"nothex"]}}}');
    expect((await loadStatCache(join(dir, "bad.json"))).root.children.size).toBe(0);
    writeFileSync(join(dir, "cut.json"), '{"version":1,"ro');
    expect((await loadStatCache(join(dir, "cut.json"))).root.children.size).toBe(0);
  });
});
