import { applySearchReplace, editCorpus, runEditCase, runEditOffThread, type EditCaseVerdict } from "@aide/tools";
import { writeBenchResult } from "./lib/results.js";

/**
 * The edit corpus through the real parsers and matcher: per category, how many applied correctly,
 * were refused correctly, applied wrongly (the one figure that must be 0) or were refused wrongly.
 */
type Counts = Record<EditCaseVerdict, number>;
const zero = (): Counts => ({ applied_correctly: 0, refused_correctly: 0, applied_wrongly: 0, refused_wrongly: 0 });
const totals = zero();
const byCategory: Record<string, Counts> = {};
const failures: Array<{ name: string; category: string; verdict: EditCaseVerdict; error?: string }> = [];
const started = performance.now();
for (const testCase of editCorpus) {
  const run = runEditCase(testCase);
  totals[run.verdict] += 1;
  (byCategory[testCase.category] ??= zero())[run.verdict] += 1;
  if (run.verdict === "applied_wrongly" || run.verdict === "refused_wrongly") failures.push({ name: testCase.name, category: testCase.category, verdict: run.verdict, error: run.error });
}
const elapsedMs = performance.now() - started;

/** A 100k-line miss: how long it holds the event loop inline, and the longest stall when it runs off-thread. */
async function largeMiss(): Promise<Record<string, number>> {
  const lines = Array.from({ length: 100_000 }, (_, i) => `    const value${i} = compute(${i}, "some text here");`);
  const before = Buffer.from(lines.join("\n") + "\n");
  const search = Array.from({ length: 20 }, (_, k) => `    const value${500 + k} = compute(${500 + k}, "some text hare");`).join("\n") + "\n";
  const blocks = [{ search, replace: "x\n" }];
  const inlineStarted = performance.now();
  applySearchReplace(before, blocks, "big.ts");
  const inlineMs = performance.now() - inlineStarted;
  let last = performance.now();
  let longestStall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestStall = Math.max(longestStall, now - last);
    last = now;
  }, 1);
  const offStarted = performance.now();
  await runEditOffThread({ kind: "search_replace", before, blocks, path: "big.ts", options: {} }, { signal: new AbortController().signal });
  const offMs = performance.now() - offStarted;
  clearInterval(ticker);
  const round = (n: number) => Math.round(n * 10) / 10;
  return { lines: lines.length, inline_blocks_event_loop_ms: round(inlineMs), off_thread_total_ms: round(offMs), off_thread_longest_event_loop_stall_ms: round(longestStall) };
}
const large_miss = await largeMiss();
const expectedApplied = editCorpus.filter((c) => "after" in c.expect).length;
const figures = {
  cases: editCorpus.length,
  expected_to_apply: expectedApplied,
  expected_to_refuse: editCorpus.length - expectedApplied,
  ...totals,
  target_applied_wrongly: 0,
  by_category: byCategory,
  total_ms: Math.round(elapsedMs * 100) / 100,
  large_miss,
  failures,
};
const path = writeBenchResult("edits", figures);
const rows = Object.entries(byCategory).map(
  ([category, c]) =>
    `${category.padEnd(22)} ${String(c.applied_correctly).padStart(7)} ${String(c.refused_correctly).padStart(7)} ${String(c.applied_wrongly).padStart(7)} ${String(c.refused_wrongly).padStart(7)}`,
);
process.stdout.write(
  [
    `${"category".padEnd(22)} ${"applied".padStart(7)} ${"refused".padStart(7)} ${"wrong+".padStart(7)} ${"wrong-".padStart(7)}`,
    ...rows,
    `${"total".padEnd(22)} ${String(totals.applied_correctly).padStart(7)} ${String(totals.refused_correctly).padStart(7)} ${String(totals.applied_wrongly).padStart(7)} ${String(totals.refused_wrongly).padStart(7)}`,
  ].join("\n") + `\n(applied/refused = correctly; wrong+ = applied wrongly, wrong- = refused wrongly)\nlarge miss: ${JSON.stringify(large_miss)}\nwritten to ${path}\n`,
);
if (totals.applied_wrongly > 0) process.exitCode = 1;
