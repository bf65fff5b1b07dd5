import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ClaimedStats, claimStates, createClaimBoard, lstatFromBack, type ClaimBoard } from "./stat-claims.js";
import { useTempDirs } from "../../test/temp-dirs.js";

const tempDir = useTempDirs();

/** A folder of `count` files; returns the workspace and the relative paths. */
function workspace(count: number): { ws: string; paths: string[] } {
  const ws = tempDir("aide-claims-");
  mkdirSync(join(ws, "d"));
  const paths = ["d"];
  for (let i = 0; i < count; i++) {
    writeFileSync(join(ws, "d", `f${i}`), "x".repeat(i));
    paths.push(`d/f${i}`);
  }
  return { ws, paths };
}

function numbers(board: ClaimedStats, slot: number) {
  const stats = board.at(slot)!;
  return [stats.mode, stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino, stats.nlink];
}

function expectAsLstat(claimed: ClaimedStats, ws: string, paths: string[]): void {
  paths.forEach((path, slot) => {
    const mine = lstatSync(join(ws, path));
    expect(numbers(claimed, slot)).toEqual([mine.mode, mine.size, mine.mtimeMs, mine.ctimeMs, mine.ino, mine.nlink]);
  });
}

describe("the claim board (both sides on one thread, interleaved by hand)", () => {
  it("the walk's side alone (no worker) lstats every path once", async () => {
    const { ws, paths } = workspace(20);
    const claimed = new ClaimedStats(createClaimBoard(paths.length), ws, paths, 1000);
    await claimed.takeFront(1000, async () => {});
    expectAsLstat(claimed, ws, paths);
    expect(claimed.finish()).toEqual({ paths: 21, walk: 21, worker: 0, waited: 0, twice: 0 });
  });

  it("a worker that ran first leaves the walk nothing to lstat", async () => {
    const { ws, paths } = workspace(20);
    const board = createClaimBoard(paths.length);
    expect(lstatFromBack(board, paths, ws)).toBe(21);
    const claimed = new ClaimedStats(board, ws, paths, 1000);
    await claimed.takeFront(1000, async () => {});
    expectAsLstat(claimed, ws, paths);
    expect(claimed.finish()).toEqual({ paths: 21, walk: 0, worker: 21, waited: 0, twice: 0 });
  });

  it("front and back meet: each path lstatted by exactly one side, the worker stopping at the walk's first claim", async () => {
    const { ws, paths } = workspace(30);
    const board = createClaimBoard(paths.length);
    const claimed = new ClaimedStats(board, ws, paths, 1000);
    let workerTook = -1;
    // The walk pauses after 5 lstats; the "worker" runs then (as if scheduled meanwhile) and takes the rest from the back.
    await claimed.takeFront(5, async () => {
      if (workerTook < 0) workerTook = lstatFromBack(board, paths, ws);
    });
    expect(workerTook).toBe(31 - 5);
    expectAsLstat(claimed, ws, paths);
    expect(claimed.finish()).toEqual({ paths: 31, walk: 5, worker: 26, waited: 0, twice: 0 });
  });

  it("a worker that died inside an lstat (its claim never finished) costs one bounded wait and one lstat of that path, not an answer", async () => {
    const { ws, paths } = workspace(10);
    const board: ClaimBoard = createClaimBoard(paths.length);
    Atomics.store(board.claims, 7, claimStates.worker);
    const claimed = new ClaimedStats(board, ws, paths, 5);
    await claimed.takeFront(1000, async () => {});
    expectAsLstat(claimed, ws, paths);
    expect(claimed.finish()).toMatchObject({ walk: 11, waited: 1, twice: 1 });
  });

  it('a path the worker could not lstat has no numbers (the walk looks itself and reports why); slots marked "" are left to the walk', async () => {
    const { ws, paths } = workspace(3);
    const onBoard = [...paths, "d/missing", ""];
    const board = createClaimBoard(onBoard.length);
    lstatFromBack(board, onBoard, ws);
    const claimed = new ClaimedStats(board, ws, onBoard, 1000);
    await claimed.takeFront(1000, async () => {});
    expect(claimed.at(4)).toBeUndefined();
    expect(claimed.at(5)).toBeUndefined();
    expect(() => claimed.lstatHere(join(ws, "d/missing"), 4)).toThrow(/ENOENT/);
    expectAsLstat(claimed, ws, paths);
    expect(claimed.finish()).toEqual({ paths: 6, walk: 1, worker: 5, waited: 0, twice: 1 });
  });

  it("once the walk has finished, the worker takes nothing more", () => {
    const { ws, paths } = workspace(10);
    const board = createClaimBoard(paths.length);
    new ClaimedStats(board, ws, paths, 1000).finish();
    expect(lstatFromBack(board, paths, ws)).toBe(0);
  });
});
