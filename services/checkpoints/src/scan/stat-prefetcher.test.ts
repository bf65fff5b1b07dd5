import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hashObject } from "../git/git-objects.js";
import { compileRules } from "./exclude-rules.js";
import { scanWorkspace, type ObjectSink, type ScanResult } from "./scan-workspace.js";
import { emptyDir, type DirNode } from "./stat-cache-tree.js";
import { StatPrefetcher } from "./stat-prefetcher.js";
import { useTempDirs } from "../../test/temp-dirs.js";

const tempDir = useTempDirs();
const prefetchers: StatPrefetcher[] = [];
afterEach(async () => {
  for (const p of prefetchers.splice(0)) await p.close();
});
/** The worker as built (`tsc -b`): vitest runs this file from src/, where only the .ts exists. */
const builtWorker = new URL("../../dist/scan/lstat-worker.js", import.meta.url);
const builtClaims = new URL("../../dist/scan/stat-claims.js", import.meta.url).href;
const sink: ObjectSink = { write: async (type, content, knownOid) => knownOid ?? hashObject(type, content) };

/** A worker thread from source text (it can import the built board code by its file URL). */
const workerFrom = (code: string) => new URL(`data:text/javascript,${encodeURIComponent(code)}`);
/** Lstats each path a few ms late: the walk's thread overtakes it. */
const slowWorker = workerFrom(`
  import { parentPort } from "node:worker_threads";
  import { boardOf, lstatFromBack, tryLstat } from ${JSON.stringify(builtClaims)};
  const nap = new Int32Array(new SharedArrayBuffer(4));
  let paths = [];
  parentPort.on("message", (ask) => {
    if (ask.paths !== undefined) paths = ask.paths.split("\\n");
    lstatFromBack(boardOf(ask.board, paths.length), paths, ask.workspace, (path) => { Atomics.wait(nap, 0, 0, 3); return tryLstat(path); });
  });`);
/** Claims the last path and dies before it lstats it. */
const dyingWorker = workerFrom(`
  import { parentPort } from "node:worker_threads";
  import { boardOf } from ${JSON.stringify(builtClaims)};
  parentPort.on("message", (ask) => {
    const paths = ask.paths.split("\\n");
    Atomics.compareExchange(boardOf(ask.board, paths.length).claims, paths.length - 1, 0, 1);
    process.exit(0);
  });`);

/** 50 folders of 50 files and a link: 2,551 cached paths, over the board's threshold. */
function largeTree(ws: string): number {
  for (let f = 0; f < 50; f++) {
    mkdirSync(join(ws, `mod${f}`), { recursive: true });
    for (let i = 0; i < 50; i++) writeFileSync(join(ws, `mod${f}`, `file${i}.txt`), `${f}:${i}\n`);
  }
  symlinkSync("mod0/file0.txt", join(ws, "link"));
  return 50 * 51 + 1;
}

/** One rules object for every walk, as in the service: a folder listing is trusted under the rules it was made with. */
const excludes = compileRules([], []);
const scan = (ws: string, previous: DirNode, prefetch?: StatPrefetcher) =>
  scanWorkspace(previous, {
    workspace: ws,
    excludes,
    respectGitignore: false,
    maxFileBytes: 1_000_000,
    sink,
    signal: new AbortController().signal,
    now: () => Date.now() + 60_000,
    ...(prefetch ? { prefetch } : {}),
  });

function prefetcher(options: ConstructorParameters<typeof StatPrefetcher>[0]): StatPrefetcher {
  const made = new StatPrefetcher(options);
  prefetchers.push(made);
  made.start();
  return made;
}

/** Edits on both ends of the walk order (the walk's thread takes the front, the worker the back). */
function edit(ws: string): void {
  writeFileSync(join(ws, "mod1", "file3.txt"), "edited at the front\n");
  writeFileSync(join(ws, "mod40", "file7.txt"), "edited, longer than before\n");
  rmSync(join(ws, "mod45", "file1.txt"));
  writeFileSync(join(ws, "mod47", "new.txt"), "new\n");
  chmodSync(join(ws, "mod48", "file2.txt"), 0o755);
  rmSync(join(ws, "mod49"), { recursive: true });
  writeFileSync(join(ws, "mod49"), "a file where a folder was\n");
}

function expectSame(helped: ScanResult, alone: ScanResult): void {
  expect(helped.root.oid).toBe(alone.root.oid);
  expect(helped.changes).toBe(alone.changes);
  expect(helped.listedFolders).toBe(alone.listedFolders);
}

describe("StatPrefetcher: the walk and the lstat thread share one board", () => {
  it("every path is lstatted exactly once across both threads, and the walk finds what a walk on one thread finds", async () => {
    const ws = tempDir("aide-prefetch-walk-");
    const paths = largeTree(ws);
    const first = await scan(ws, emptyDir());
    const both = prefetcher({ workerUrl: builtWorker, claimWaitMs: 60_000 });
    // Nothing changed: every folder is kept whole, and nothing is lstatted twice.
    const still = await scan(ws, first.root, both);
    expect(still.root).toBe(first.root);
    expect(still.statThread).toMatchObject({ paths, twice: 0, kept: 50 });
    expect(still.statThread!.walk + still.statThread!.worker).toBe(paths);
    edit(ws);
    const alone = await scan(ws, first.root);
    expect(alone.changes).toBe(56);
    const helped = await scan(ws, first.root, both);
    expectSame(helped, alone);
    // The edited folders (mod1, mod40, mod45, mod47, mod48, mod49) are walked; the other 44 kept.
    expect(helped.statThread).toMatchObject({ paths, twice: 0, kept: 44 });
    // The board's paths once each, plus what the board did not know: mod47/new.txt.
    expect(helped.statThread!.walk + helped.statThread!.worker).toBe(paths + 1);
    // The same paths again: the worker is not sent them again (it kept the last list), and the answer is the same.
    const again = await scan(ws, helped.root, both);
    expect(again.root).toBe(helped.root);
    expect(again.statThread).toMatchObject({ twice: 0 });
    expect(again.statThread!.walk + again.statThread!.worker).toBe(again.statThread!.paths);
    writeFileSync(join(ws, "mod44", "file0.txt"), "edited after\n");
    expectSame(await scan(ws, helped.root, both), await scan(ws, helped.root));
  });

  it("names that cannot cross to the worker as text (not UTF-8, a newline) are lstatted by the walk, with the same result", async () => {
    const ws = tempDir("aide-prefetch-raw-");
    const paths = largeTree(ws);
    const rawName = Buffer.concat([Buffer.from(`${ws}/mod10/raw-`), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]);
    writeFileSync(rawName, "raw\n");
    mkdirSync(join(ws, "mod20", "line\nbreak"));
    writeFileSync(join(ws, "mod20", "line\nbreak", "inside.txt"), "inside\n");
    const first = await scan(ws, emptyDir());
    const both = prefetcher({ workerUrl: builtWorker, claimWaitMs: 60_000 });
    const still = await scan(ws, first.root, both);
    expect(still.root).toBe(first.root);
    expect(still.statThread).toMatchObject({ paths: paths + 3, twice: 0 });
    // The three left to the walk are the raw name, the folder with the newline and the file in it; they are not on the board for either side.
    expect(still.statThread!.walk + still.statThread!.worker).toBe(paths + 3);
    writeFileSync(rawName, "raw, edited\n");
    writeFileSync(join(ws, "mod20", "line\nbreak", "inside.txt"), "inside, edited\n");
    edit(ws);
    expectSame(await scan(ws, first.root, both), await scan(ws, first.root));
  });

  it("a slow worker: the walk's thread takes more of the board, still each path once, same result", async () => {
    const ws = tempDir("aide-prefetch-slow-");
    const paths = largeTree(ws);
    const first = await scan(ws, emptyDir());
    edit(ws);
    const alone = await scan(ws, first.root);
    const helped = await scan(ws, first.root, prefetcher({ workerUrl: slowWorker, claimWaitMs: 60_000 }));
    expectSame(helped, alone);
    expect(helped.statThread!.twice).toBe(0);
    expect(helped.statThread!.walk + helped.statThread!.worker).toBe(paths + 1);
    expect(helped.statThread!.walk).toBeGreaterThan(helped.statThread!.worker);
  });

  it("a worker that dies holding a claim costs one bounded wait, never an answer", async () => {
    const ws = tempDir("aide-prefetch-dying-");
    largeTree(ws);
    const first = await scan(ws, emptyDir());
    edit(ws);
    const alone = await scan(ws, first.root);
    const dying = prefetcher({ workerUrl: dyingWorker, claimWaitMs: 20 });
    // Each walk's worker dies (holding the last path, unless the walk got there first) and a new
    // one is started, three times; then the walks are on one thread. Every answer is the same.
    for (let attempt = 0; attempt < 5; attempt++) {
      const helped = await scan(ws, first.root, dying);
      expectSame(helped, alone);
      expect(helped.statThread?.twice ?? 0).toBeLessThanOrEqual(1);
    }
  });

  it("a worker that cannot start changes nothing: the walk is on one thread", async () => {
    const ws = tempDir("aide-prefetch-broken-");
    largeTree(ws);
    const first = await scan(ws, emptyDir());
    edit(ws);
    const alone = await scan(ws, first.root);
    const broken = prefetcher({ workerUrl: new URL("./no-such-worker.js", import.meta.url) });
    for (let i = 0; i < 4; i++) expectSame(await scan(ws, first.root, broken), alone);
  });
});
