import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { editTargets } from "./lib/fuzz-edits.js";
import { encodingTargets } from "./lib/fuzz-encoding.js";
import { fuzzDesignNotes, fuzzFindings } from "./lib/fuzz-findings.js";
import { inputTargets } from "./lib/fuzz-inputs.js";
import { runTarget, type FuzzTargetCounts } from "./lib/fuzz-runner.js";
import { benchRoot } from "./lib/results.js";

/**
 * Property-based fuzzing of the parsers and the edit engine with fast-check: generated input for a
 * time budget (BENCH_FUZZ_SECONDS, default 600, split evenly over the targets), and per target the
 * inputs tried, the failing batches and each distinct shrunk counterexample. Writes
 * bench/results/fuzz/report.json and report.md. BENCH_FUZZ_SEED fixes the first seed;
 * BENCH_FUZZ_TARGETS (comma-separated names) runs some targets only.
 */
const seconds = Number(process.env.BENCH_FUZZ_SECONDS ?? 600);
const firstSeed = Number(process.env.BENCH_FUZZ_SEED ?? Date.now() % 2 ** 31);
const only = process.env.BENCH_FUZZ_TARGETS?.split(",")
  .map((name) => name.trim())
  .filter((name) => name !== "");
const targets = [...inputTargets, ...editTargets, ...encodingTargets].filter((target) => only === undefined || only.includes(target.name));
const share = seconds / targets.length;

const started = new Date();
const results: FuzzTargetCounts[] = [];
for (const [index, target] of targets.entries()) {
  const counts = runTarget(target, share, firstSeed + index * 104_729);
  results.push(counts);
  process.stdout.write(`${target.name}: ${counts.inputs} inputs, ${counts.failures} failing batches, ${counts.counterexamples.length} distinct counterexamples (${counts.seconds} s)\n`);
}

const totals = {
  inputs: results.reduce((sum, r) => sum + r.inputs, 0),
  failures: results.reduce((sum, r) => sum + r.failures, 0),
  counterexamples: results.reduce((sum, r) => sum + r.counterexamples.length, 0),
};
const report = {
  started: started.toISOString(),
  seconds_budget: seconds,
  first_seed: firstSeed,
  totals,
  targets: results,
  findings_fixed: fuzzFindings,
  design_notes: fuzzDesignNotes,
  machine: { cpus: cpus().length, memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version, load: "shared (other jobs running; run under nice)" },
};

const lines = [
  "# Fuzz report: the parsers and the edit engine",
  "",
  `Run ${started.toISOString()}, budget ${seconds} s split over ${targets.length} targets, first seed ${firstSeed}, fast-check.`,
  `Totals: ${totals.inputs} inputs, ${totals.failures} failing batches, ${totals.counterexamples} distinct shrunk counterexamples.`,
  "",
  "| target | property | inputs | failing batches | seconds |",
  "|---|---|---:|---:|---:|",
  ...results.flatMap((r) => r.properties.map((p) => `| ${r.name} | ${p.name} | ${p.inputs} | ${p.failures} | ${p.seconds} |`)),
  "",
  "## Properties",
  "",
  ...results.flatMap((r) => [`- **${r.name}** (${r.subject}):`, ...r.properties.map((p) => `  - ${p.name}: ${p.claim}`)]),
  "",
  "## Counterexamples of this run (shrunk)",
  "",
  ...(totals.counterexamples === 0
    ? ["None: failures left 0."]
    : results.flatMap((r) =>
        r.counterexamples.map((c) => `- ${r.name} / ${c.property} (seed ${c.seed}, ${c.shrinks} shrinks): \`${c.counterexample.replace(/`/g, "\\`")}\`\n  - ${c.error.replace(/\n/g, " ")}`),
      )),
  "",
  `## Failures found by earlier runs, fixed (${fuzzFindings.length})`,
  "",
  "Each has a plain regression test with the shrunk input beside the code.",
  "",
  ...fuzzFindings.map((f) => `- **${f.target}**: ${f.input}\n  - found: ${f.failure}\n  - fixed: ${f.fix}\n  - test: ${f.test}`),
  "",
  "## Where an oracle follows the format's contract",
  "",
  ...fuzzDesignNotes.map((note) => `- ${note}`),
  "",
];

const dir = join(benchRoot, "results", "fuzz");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "report.json"), JSON.stringify(report, null, 2) + "\n");
writeFileSync(join(dir, "report.md"), lines.join("\n"));
process.stdout.write(`wrote ${join(dir, "report.md")}\n`);
