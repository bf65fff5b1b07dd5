import { editCorpus, runEditCase, type EditCaseVerdict } from "@aide/tools";
import { writeBenchResult } from "./lib/results.js";

/** The edit corpus through the real parsers and matcher: how many applied correctly, were refused, or went wrong. */
const counts: Record<EditCaseVerdict, number> = { applied_correctly: 0, refused_correctly: 0, applied_wrongly: 0, refused_wrongly: 0 };
const failures: Array<{ name: string; verdict: EditCaseVerdict; error?: string }> = [];
const started = performance.now();
for (const testCase of editCorpus) {
  const run = runEditCase(testCase);
  counts[run.verdict] += 1;
  if (run.verdict === "applied_wrongly" || run.verdict === "refused_wrongly") failures.push({ name: testCase.name, verdict: run.verdict, error: run.error });
}
const elapsedMs = performance.now() - started;
const expectedApplied = editCorpus.filter((c) => "after" in c.expect).length;
const figures = {
  cases: editCorpus.length,
  expected_to_apply: expectedApplied,
  expected_to_refuse: editCorpus.length - expectedApplied,
  applied_correctly: counts.applied_correctly,
  refused: counts.refused_correctly + counts.refused_wrongly,
  refused_correctly: counts.refused_correctly,
  refused_wrongly: counts.refused_wrongly,
  applied_wrongly: counts.applied_wrongly,
  target_applied_wrongly: 0,
  total_ms: Math.round(elapsedMs * 100) / 100,
  failures,
};
const path = writeBenchResult("edits", figures);
process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwritten to ${path}\n`);
if (counts.applied_wrongly > 0) process.exitCode = 1;
