/**
 * The thread behind StatPrefetcher: lstats the paths it is sent and answers with the numbers a
 * scan compares (no Stats objects cross the thread boundary). Reads nothing, writes nothing.
 */
import { lstatSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { statFields, type PrefetchAnswer, type PrefetchAsk } from "./stat-prefetcher.js";

parentPort?.on("message", (ask: PrefetchAsk) => {
  const paths = ask.paths.split("\n");
  const values = new Float64Array(paths.length * statFields);
  for (let i = 0; i < paths.length; i++) {
    const at = i * statFields;
    let stats;
    try {
      stats = lstatSync(`${ask.workspace}/${paths[i]}`, { throwIfNoEntry: false });
    } catch {
      stats = undefined;
    }
    // No entry or unreadable: NaN, so the scan looks at it itself (and reports what it finds).
    if (stats === undefined) { values[at] = Number.NaN; continue; }
    values[at] = stats.mode;
    values[at + 1] = stats.size;
    values[at + 2] = stats.mtimeMs;
    values[at + 3] = stats.ctimeMs;
    values[at + 4] = stats.ino;
    values[at + 5] = stats.nlink;
  }
  const answer: PrefetchAnswer = { id: ask.id, values };
  parentPort!.postMessage(answer, [values.buffer]);
});
