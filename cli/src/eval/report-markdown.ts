/** The scoreboard as markdown (`report.md`), from the report's data. */
import type { EvalReport, PairedComparison } from "./eval-report.js";
import type { Interval } from "./paired-statistics.js";

const percent = (value: number, whole = 1) => (whole === 0 ? "–" : `${Math.round(value * 1000) / 10} %`);
const count = (part: number, whole: number) => `${part} (${percent(whole === 0 ? 0 : part / whole, whole)})`;
const seconds = (ms: number) => (Number.isFinite(ms) ? `${Math.round(ms / 100) / 10} s` : "–");
/** "62 × 3" when every task of the report was attempted at least 3 times, else "34 of 62". */
const covered = (c: { tasks: number; of: number; each_at_least: number }) => (c.each_at_least > 0 ? `${c.of} × ${c.each_at_least}` : `${c.tasks} of ${c.of}`);
const whole = (value: number) => (Number.isFinite(value) ? String(Math.round(value)) : "–");

function interval(name: string, unit: string, value: Interval, c: PairedComparison): string {
  if (!Number.isFinite(value.low)) return `- ${name}, ${c.b} − ${c.a}: median ${whole(value.estimate)}${unit}; too few pairs for an interval (not significant).`;
  return `- ${name}, ${c.b} − ${c.a}: median ${whole(value.estimate)}${unit}, 95 % interval [${whole(value.low)}, ${whole(value.high)}] (${value.significant ? "a difference" : "not significant"}).`;
}

export function reportMarkdown(report: EvalReport, chartFile?: string): string {
  const lines = [
    "# aide eval report",
    "",
    `${report.attempts} attempts, ${report.tasks} tasks, runs: ${report.runs.join(", ")}.`,
    "A task passes when its hidden check passes. Done agrees with check (the honesty figure): the run said done and the check passed, or it did not say done and the check failed. A false done (said done, check failed) is the worst outcome and is counted on its own.",
    "",
    "| model / arm | attempts | tasks × repeats | check passed | claimed done | false done | done agrees with check | well-formed calls | median time | median tokens | prompt tokens re-evaluated |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...report.variants.map(
      (s) =>
        `| ${s.variant} | ${s.attempts} | ${covered(s.coverage)} | ${count(s.passed, s.attempts)} | ${s.claimed_done} | ${s.false_done} | ${percent(s.agreement_rate, s.attempts)} | ${s.calls ? `${count(s.calls.well_formed, s.calls.tried)}${s.calls.prose_only_replies > 0 ? `; ${s.calls.prose_only_replies} replies without a call` : ""}` : "not recorded"} | ${seconds(s.median_wall_ms)} | ${whole(s.median_tokens)} | ${s.kv ? `${s.kv.evaluated_prompt_tokens} of ${s.kv.prompt_tokens} (${percent(1 - s.kv.reused_share)})` : "not reported"} |`,
    ),
    "",
    "Outcomes: " +
      report.variants
        .map(
          (s) =>
            `${s.variant}: ${Object.entries(s.outcomes)
              .sort()
              .map(([outcome, n]) => `${n} ${outcome}`)
              .join(", ")}`,
        )
        .join("; ") +
      ".",
  ];
  // Which attempts had the project's instructions in their prompt, from their events (an instructions arm's proof).
  const instructed = report.variants.filter((s) => s.instructions !== null);
  if (instructed.some((s) => s.instructions!.loaded > 0)) {
    lines.push(
      "",
      "Project instructions in the prompt (`instructions.loaded`): " + instructed.map((s) => `${s.variant}: ${s.instructions!.loaded} of ${s.instructions!.attempts} attempts`).join("; ") + ".",
    );
  }
  if (chartFile) lines.push("", `![pass rate against median time](${chartFile})`);
  lines.push("", "## By category", "", "| model / arm | category | attempts | check passed |", "|---|---|---|---|");
  for (const s of report.variants) for (const [category, c] of Object.entries(s.by_category).sort()) lines.push(`| ${s.variant} | ${category} | ${c.attempts} | ${count(c.passed, c.attempts)} |`);
  for (const c of report.comparisons) {
    lines.push(
      "",
      `## ${c.a} vs ${c.b} (${c.pairs} paired attempts)`,
      "",
      `- pass/fail: ${c.only_a} passed only by ${c.a}, ${c.only_b} only by ${c.b}; exact McNemar p = ${c.p_value.toPrecision(3)} (${c.significant ? "significant at 5 %" : "not significant"}).`,
      interval("time", " ms", c.wall_ms, c),
      interval("tokens", "", c.tokens, c),
    );
  }
  return `${lines.join("\n")}\n`;
}
