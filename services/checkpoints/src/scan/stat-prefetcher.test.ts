import { lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hashObject } from "../git/git-objects.js";
import { compileRules } from "./exclude-rules.js";
import { scanWorkspace, type ObjectSink } from "./scan-workspace.js";
import { emptyDir, type DirNode } from "./stat-cache-tree.js";
import { StatPrefetcher, type PrefetchRequest } from "./stat-prefetcher.js";
import { useTempDirs } from "../../test/temp-dirs.js";

const tempDir = useTempDirs();
const prefetchers: StatPrefetcher[] = [];
afterEach(async () => {
  for (const p of prefetchers.splice(0)) await p.close();
});
/** The worker as built (`tsc -b`): vitest runs this file from src/, where only the .ts exists. */
const builtWorker = new URL("../../dist/scan/lstat-worker.js", import.meta.url);
const sink: ObjectSink = { write: async (type, content, knownOid) => knownOid ?? hashObject(type, content) };

function largeTree(ws: string): void {
  for (let f = 0; f < 50; f++) {
    mkdirSync(join(ws, `mod${f}`), { recursive: true });
    for (let i = 0; i < 50; i++) writeFileSync(join(ws, `mod${f}`, `file${i}.txt`), `${f}:${i}\n`);
  }
  symlinkSync("mod0/file0.txt", join(ws, "link"));
}

const scan = (ws: string, previous: DirNode, prefetch?: StatPrefetcher) =>
  scanWorkspace(previous, { workspace: ws, excludes: compileRules([], []), respectGitignore: false, maxFileBytes: 1_000_000, sink, signal: new AbortController().signal, now: () => Date.now() + 60_000, ...(prefetch ? { prefetch } : {}) });

async function answered(request: PrefetchRequest, probe: string): Promise<void> {
  // Answers are taken while the event loop turns; wait for this one (each is handed out once, so probe a path kept for it).
  for (let turn = 0; turn < 100_000 && !(request as unknown as { values?: Float64Array }).values; turn++) await new Promise((resolve) => setImmediate(resolve));
  void probe;
}

describe("StatPrefetcher", () => {
  it("answers each path with the numbers lstat gives on this thread (file, folder, link; nothing for a missing path)", async () => {
    const ws = tempDir("aide-prefetch-");
    largeTree(ws);
    const prefetcher = new StatPrefetcher(builtWorker);
    prefetchers.push(prefetcher);
    const asked = prefetcher.request(ws, ["mod1/file2.txt", "mod3", "link", "missing.txt"]);
    expect(asked).toBeDefined();
    await answered(asked!.request, "mod1/file2.txt");
    for (const path of ["mod1/file2.txt", "mod3", "link"]) {
      const mine = lstatSync(join(ws, path));
      const theirs = asked!.request.take(path)!;
      expect(theirs).toBeDefined();
      expect([theirs.mode, theirs.size, theirs.mtimeMs, theirs.ctimeMs, theirs.ino, theirs.nlink]).toEqual([mine.mode, mine.size, mine.mtimeMs, mine.ctimeMs, mine.ino, mine.nlink]);
      expect([theirs.isFile(), theirs.isDirectory(), theirs.isSymbolicLink()]).toEqual([mine.isFile(), mine.isDirectory(), mine.isSymbolicLink()]);
    }
    expect(asked!.request.take("missing.txt")).toBeUndefined();
    // Handed out once: a second take is the scan's own lstat.
    expect(asked!.request.take("mod1/file2.txt")).toBeUndefined();
    asked!.done();
  });

  it("a walk that uses it finds what a walk on one thread finds, edits included; a worker that cannot start changes nothing", async () => {
    const ws = tempDir("aide-prefetch-walk-");
    largeTree(ws);
    const first = await scan(ws, emptyDir());
    writeFileSync(join(ws, "mod40", "file7.txt"), "edited, longer than before\n");
    rmSync(join(ws, "mod45", "file1.txt"));
    const alone = await scan(ws, first.root);
    const prefetcher = new StatPrefetcher(builtWorker);
    prefetchers.push(prefetcher);
    // Warm the worker, then walk with it: the edits lie in the half the worker lstats.
    const warm = prefetcher.request(ws, ["mod0"]);
    await answered(warm!.request, "mod0");
    warm!.done();
    const helped = await scan(ws, first.root, prefetcher);
    expect(helped.root.oid).toBe(alone.root.oid);
    expect(helped.changes).toBe(alone.changes);
    expect(helped.changes).toBe(2);
    const broken = new StatPrefetcher(new URL("./no-such-worker.js", import.meta.url));
    prefetchers.push(broken);
    const without = await scan(ws, first.root, broken);
    expect(without.root.oid).toBe(alone.root.oid);
    expect(without.changes).toBe(2);
  });
});
