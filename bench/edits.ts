import { editCorpus, runEditCase, type EditCaseVerdict } from "@aide/tools";
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
const expectedApplied = editCorpus.filter((c) => "after" in c.expect).length;
const figures = {
  cases: editCorpus.length,
  expected_to_apply: expectedApplied,
  expected_to_refuse: editCorpus.length - expectedApplied,
  ...totals,
  target_applied_wrongly: 0,
  by_category: byCategory,
  total_ms: Math.round(elapsedMs * 100) / 100,
  failures,
};
const path = writeBenchResult("edits", figures);
const rows = Object.entries(byCategory).map(([category, c]) => `${category.padEnd(22)} ${String(c.applied_correctly).padStart(7)} ${String(c.refused_correctly).padStart(7)} ${String(c.applied_wrongly).padStart(7)} ${String(c.refused_wrongly).padStart(7)}`);
process.stdout.write(
  [`${"category".padEnd(22)} ${"applied".padStart(7)} ${"refused".padStart(7)} ${"wrong+".padStart(7)} ${"wrong-".padStart(7)}`, ...rows, `${"total".padEnd(22)} ${String(totals.applied_correctly).padStart(7)} ${String(totals.refused_correctly).padStart(7)} ${String(totals.applied_wrongly).padStart(7)} ${String(totals.refused_wrongly).padStart(7)}`].join("\n") +
    `\n(applied/refused = correctly; wrong+ = applied wrongly, wrong- = refused wrongly)\nwritten to ${path}\n`,
);
if (totals.applied_wrongly > 0) process.exitCode = 1;
