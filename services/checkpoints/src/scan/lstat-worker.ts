/**
 * The thread behind StatPrefetcher: for each walk it is sent, lstats that walk's paths from the
 * back of the shared board (stat-claims.ts) until it meets the walk. Reads nothing, writes
 * nothing but the board.
 */
import { parentPort } from "node:worker_threads";
import { boardOf, lstatFromBack } from "./stat-claims.js";
import type { PrefetchAsk } from "./stat-prefetcher.js";

/** The paths of the previous ask: an ask without paths has the same ones. */
let paths: string[] = [];

parentPort?.on("message", (ask: PrefetchAsk) => {
  if (ask.paths !== undefined) paths = ask.paths.split("\n");
  lstatFromBack(boardOf(ask.board, paths.length), paths, ask.workspace);
});
