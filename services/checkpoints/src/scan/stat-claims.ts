/**
 * How a full walk and the lstat thread share the lstats of one walk without doing any twice.
 *
 * Before the walk, the paths the cache knows are put on a board in the order the walk visits
 * them, shared by both threads: a claim flag per path and the numbers of its lstat. The walk's
 * thread claims paths from the front and lstats them; the worker claims from the back and stops
 * at the first path the walk's thread claimed. Whoever claims a path lstats it. The walk's thread
 * waits (Atomics.wait, bounded) only for the one path the worker may be in the middle of when
 * they meet. A slow, dead or missing worker therefore only leaves more of the board to the
 * walk's thread; a wait that runs out (the worker died inside an lstat, or is not being
 * scheduled) falls back to the walk's own lstat of that path.
 *
 * Every number on the board is taken during the scan, after it started (under the workspace
 * lock), exactly like the walk's own lstats.
 */
import { constants, lstatSync, type Stats } from "node:fs";

/** Per path: mode, size, mtimeMs, ctimeMs, ino, nlink. */
export const statFields = 6;

/** A path's claim: nobody yet; the worker (lstat under way); done by the worker; the walk's thread (under way); done by it; the lstat failed. */
const claimFree = 0;
const claimWorker = 1;
const doneByWorker = 2;
const claimWalk = 3;
const doneByWalk = 4;
const lstatFailed = 5;
/** The claim values, for tests that set a board up by hand. */
export const claimStates = { free: claimFree, worker: claimWorker, doneByWorker, walk: claimWalk, doneByWalk, failed: lstatFailed } as const;

/** Header slots (Int32): the walk has ended (the worker stops), how many lstats the worker took. */
const headerStop = 0;
const headerWorkerLstats = 1;
const headerSlots = 2;

/** What a scan reads of an lstat (node's Stats has all of it). */
export interface EntryStats {
  mode: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  nlink: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** The shared memory of one walk: header, claim flags, then the numbers (8-byte aligned). */
export interface ClaimBoard {
  buffer: SharedArrayBuffer;
  header: Int32Array;
  claims: Int32Array;
  values: Float64Array;
}

function valuesOffset(paths: number): number {
  return Math.ceil(((headerSlots + paths) * 4) / 8) * 8;
}

export function createClaimBoard(paths: number): ClaimBoard {
  return boardOf(new SharedArrayBuffer(valuesOffset(paths) + paths * statFields * 8), paths);
}

/** The views over a board's buffer (the worker rebuilds them from the buffer it is sent). */
export function boardOf(buffer: SharedArrayBuffer, paths: number): ClaimBoard {
  return {
    buffer,
    header: new Int32Array(buffer, 0, headerSlots),
    claims: new Int32Array(buffer, headerSlots * 4, paths),
    values: new Float64Array(buffer, valuesOffset(paths), paths * statFields),
  };
}

/** An lstat's numbers read off the board (the scan never keeps one: it copies what it needs). */
export class BoardStats implements EntryStats {
  mode = 0;
  size = 0;
  mtimeMs = 0;
  ctimeMs = 0;
  ino = 0;
  nlink = 0;

  read(values: Float64Array, at: number): this {
    this.mode = values[at];
    this.size = values[at + 1];
    this.mtimeMs = values[at + 2];
    this.ctimeMs = values[at + 3];
    this.ino = values[at + 4];
    this.nlink = values[at + 5];
    return this;
  }

  isFile(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFREG;
  }

  isDirectory(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFDIR;
  }

  isSymbolicLink(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFLNK;
  }
}

/** Who took the lstats of one walk (logged with a restore's phases). */
export interface StatThreadCounts {
  /** Paths on the board. */
  paths: number;
  /** lstats the walk's thread took (its share of the board, and the paths not on it). */
  walk: number;
  /** lstats the worker took. */
  worker: number;
  /** Times the walk's thread waited for a path the worker was in the middle of. */
  waited: number;
  /** Paths lstatted by both: the wait ran out, or the first lstat failed (the walk looks again to report why). */
  twice: number;
  /** Folders the walk kept whole, unvisited: their lstats and all below them matched the cache (shared-walk.ts). */
  kept?: number;
}

function writeStats(values: Float64Array, at: number, stats: Stats): void {
  values[at] = stats.mode;
  values[at + 1] = stats.size;
  values[at + 2] = stats.mtimeMs;
  values[at + 3] = stats.ctimeMs;
  values[at + 4] = stats.ino;
  values[at + 5] = stats.nlink;
}

/** lstat without throwing: undefined when there is no entry or it cannot be looked at. */
export function tryLstat(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The walk's side of a board. */
export class ClaimedStats {
  private readonly counts = { walk: 0, waited: 0, twice: 0 };
  /** The walk's own lstat of a path whose worker claim it gave up waiting for. */
  private readonly fallback = new Map<number, Stats | undefined>();

  /**
   * `paths`: workspace-relative, in the order the walk visits them; "" marks a slot neither
   * side takes (a name that cannot cross as text). `waitMs` bounds the wait for a path the
   * worker is lstatting.
   */
  constructor(
    private readonly board: ClaimBoard,
    private readonly workspace: string,
    private readonly paths: readonly string[],
    private readonly waitMs: number,
  ) {}

  /**
   * Lstats the board from the front until every path is taken by one side or the other.
   * `pause` runs every `every` lstats (the caller yields to the event loop and checks its signal there).
   */
  async takeFront(every: number, pause: () => Promise<void>): Promise<void> {
    const { claims, values } = this.board;
    let sincePause = 0;
    for (let i = 0; i < this.paths.length; i++) {
      const path = this.paths[i];
      if (path === "") continue;
      if (sincePause >= every) {
        sincePause = 0;
        await pause();
      }
      const seen = Atomics.compareExchange(claims, i, claimFree, claimWalk);
      if (seen === claimFree) {
        sincePause++;
        this.counts.walk++;
        const stats = tryLstat(`${this.workspace}/${path}`);
        if (stats !== undefined) writeStats(values, i * statFields, stats);
        Atomics.store(claims, i, stats === undefined ? lstatFailed : doneByWalk);
      } else if (seen === claimWorker) {
        this.counts.waited++;
        if (Atomics.wait(claims, i, claimWorker, this.waitMs) === "timed-out" && Atomics.load(claims, i) === claimWorker) {
          this.counts.walk++;
          this.counts.twice++;
          this.fallback.set(i, tryLstat(`${this.workspace}/${path}`));
        }
      }
    }
  }

  /**
   * The numbers of slot `i` once `takeFront` is done (read into `into` when given, else a new
   * object); undefined when there are none: the caller lstats the path itself (`lstatHere`).
   */
  at(i: number, into?: BoardStats): EntryStats | undefined {
    const claim = Atomics.load(this.board.claims, i);
    if (claim === doneByWorker || claim === doneByWalk) return (into ?? new BoardStats()).read(this.board.values, i * statFields);
    return this.fallback.get(i);
  }

  /** The walk's own lstat of a path without numbers on the board (`slot`: its place there, -1 for none). Throws as lstatSync does. */
  lstatHere(absolute: string | Buffer, slot = -1): EntryStats {
    this.counts.walk++;
    // Taken on the board already, but failed (or its fallback did): this is the second look.
    if (slot >= 0 && Atomics.load(this.board.claims, slot) !== claimFree) this.counts.twice++;
    return lstatSync(absolute);
  }

  /** Ends the walk's use of the board: the worker stops at its next path. */
  finish(): StatThreadCounts {
    Atomics.store(this.board.header, headerStop, 1);
    return { paths: this.paths.length, ...this.counts, worker: Atomics.load(this.board.header, headerWorkerLstats) };
  }
}

/**
 * The worker's side: claims paths from the back and lstats them until it meets one the walk's
 * thread claimed or the walk ends. `lstat` must not throw (undefined: no numbers). Returns the
 * number of lstats taken.
 */
export function lstatFromBack(board: ClaimBoard, paths: readonly string[], workspace: string, lstat: (path: string) => Stats | undefined = tryLstat): number {
  const { header, claims, values } = board;
  let taken = 0;
  for (let i = paths.length - 1; i >= 0; i--) {
    if (Atomics.load(header, headerStop) !== 0) break;
    const path = paths[i];
    if (path === "") continue;
    if (Atomics.compareExchange(claims, i, claimFree, claimWorker) !== claimFree) break;
    const stats = lstat(`${workspace}/${path}`);
    taken++;
    Atomics.add(header, headerWorkerLstats, 1);
    if (stats !== undefined) writeStats(values, i * statFields, stats);
    Atomics.store(claims, i, stats === undefined ? lstatFailed : doneByWorker);
    Atomics.notify(claims, i);
  }
  return taken;
}
