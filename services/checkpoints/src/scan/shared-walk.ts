/**
 * A full walk whose lstats are taken up front, on two threads, from a board of the paths the
 * cache knows (stat-claims.ts), and which then skips what did not change.
 *
 * Once every path on the board has its numbers, one sweep from the back tells, per path,
 * whether the cached node still describes it: a file whose stat matches (the walk's fast
 * path), a folder whose listing holds, which has a tree id, and below which every path is
 * unchanged. The walk keeps such a folder's cached node as it is without visiting what it
 * holds, which is exactly what visiting it would have given (same names, same nodes, same tree
 * id); everything else is walked as before, with the board's numbers in place of its own lstats.
 */
import type { CompiledRules } from "./exclude-rules.js";
import { fileStillCached, listingHolds } from "./entry-checks.js";
import { BoardStats, type ClaimedStats, type EntryStats, type StatThreadCounts } from "./stat-claims.js";
import type { DirNode, TreeNode } from "./stat-cache-tree.js";
import { hasRawName, isRawName } from "../git/raw-names.js";
import type { StatPrefetcher } from "./stat-prefetcher.js";

/** What the sweep needs to know of the scan. */
export interface SweepRules {
  excludes: CompiledRules;
  respectGitignore: boolean;
  maxFileBytes: number;
}

export class SharedWalk {
  private cursor = 0;
  private index: Map<string, number> | undefined;
  private unchanged: Uint8Array | undefined;
  private kept = 0;

  private constructor(
    private readonly claims: ClaimedStats,
    /** The board's paths in walk order, each folder before what it holds. */
    private readonly paths: readonly string[],
    /** The cached node of each path. */
    private readonly nodes: readonly TreeNode[],
    /** Per path: the slot after everything below it. */
    private readonly ends: Int32Array,
  ) {}

  /** Puts the paths `previous` knows on a board shared with the lstat thread; undefined when there are too few or no thread. */
  static start(prefetcher: StatPrefetcher, workspace: string, previous: DirNode, minPaths: number): SharedWalk | undefined {
    const paths: string[] = [];
    const nodes: TreeNode[] = [];
    const ends: number[] = [];
    let textOnly = true;
    const collect = (dir: DirNode, prefix: string) => {
      for (const [name, node] of dir.children) {
        const path = prefix === "" ? name : `${prefix}/${name}`;
        const slot = paths.length;
        if (textOnly && (isRawName(name) || name.includes("\n"))) textOnly = false;
        paths.push(path);
        nodes.push(node);
        ends.push(slot + 1);
        if (node.kind === "dir") {
          collect(node, path);
          ends[slot] = paths.length;
        }
      }
    };
    collect(previous, "");
    if (paths.length < minPaths) return undefined;
    // Paths cross to the worker one per line, as text: a name with a newline or not UTF-8 is left to the walk ("").
    const boardPaths = textOnly ? paths : paths.map((path) => (hasRawName(path) || path.includes("\n") ? "" : path));
    const claims = prefetcher.request(workspace, boardPaths);
    return claims === undefined ? undefined : new SharedWalk(claims, paths, nodes, Int32Array.from(ends));
  }

  /** Takes every lstat of the board (with the worker), then sweeps it. `pause` runs now and then (yield, check the signal). */
  async takeLstats(rules: SweepRules, pause: () => Promise<void>, every: number): Promise<void> {
    await this.claims.takeFront(every, pause);
    const count = this.paths.length;
    const unchanged = new Uint8Array(count);
    const stats = new BoardStats();
    // The nearest path after the current one (in walk order) that changed or has no numbers.
    let nearestChanged = count;
    for (let i = count - 1; i >= 0; i--) {
      const node = this.nodes[i];
      const seen = this.claims.at(i, stats);
      let same = false;
      if (seen !== undefined) {
        if (node.kind === "file") same = fileStillCached(node, seen, rules.maxFileBytes);
        else if (node.kind === "dir") same = node.oid !== undefined && seen.isDirectory() && listingHolds(rules, node, seen) && nearestChanged >= this.ends[i];
      }
      if (same) unchanged[i] = 1;
      else nearestChanged = i;
    }
    this.unchanged = unchanged;
  }

  /** The path's slot on the board: the next one in walk order (the common case), else looked up; -1 when not on it. */
  slotOf(path: string): number {
    if (this.cursor < this.paths.length && this.paths[this.cursor] === path) return this.cursor++;
    this.index ??= new Map(this.paths.map((p, i) => [p, i]));
    const slot = this.index.get(path);
    if (slot === undefined) return -1;
    this.cursor = slot + 1;
    return slot;
  }

  /** `node` is the cached node of the slot and still describes the path and (a folder) all below it. */
  unchangedAt(slot: number, node: TreeNode): boolean {
    return this.unchanged?.[slot] === 1 && this.nodes[slot] === node;
  }

  /** The walk keeps the folder at `slot` whole: its paths are not visited. */
  skipBelow(slot: number): void {
    this.kept++;
    this.cursor = this.ends[slot];
  }

  /** The lstat of the path at `slot` (-1: not on the board). Throws as lstatSync does. */
  stats(slot: number, absolute: string | Buffer): EntryStats {
    return (slot < 0 ? undefined : this.claims.at(slot)) ?? this.claims.lstatHere(absolute, slot);
  }

  finish(): StatThreadCounts {
    return { ...this.claims.finish(), kept: this.kept };
  }
}
