/**
 * The edit format per model, chosen from eval results: for each model, the arm of the
 * best pass rate among those whose runs all used one edit format, against the model's runs under
 * the router's choice (`routed-v1`, whatever else the arm set). It is recommended only when the
 * best format is not the router's and wins on the paired attempts with a significant exact
 * McNemar difference (5 %); the report then names the command that writes it into the model's
 * registry entry (`aide models edit-format MODEL FORMAT`). Anything else is reported as "keep".
 */
import type { AttemptRecord } from "./attempt-record.js";
import { comparePair, scoreVariants, variantOf } from "./eval-report.js";

export interface EditFormatChoice {
  model: string;
  /** The edit format the evidence supports for this model (`routed-v1`: keep the router's choice). */
  edit_format: string;
  best: { variant: string; edit_format: string; pass_rate: number } | null;
  baseline: { variant: string; pass_rate: number } | null;
  pairs: number;
  p_value: number | null;
  significant: boolean;
  /** The command that applies the choice, when there is one to apply. */
  command?: string;
}

const routed = "routed-v1";

/** The one edit format a variant's runs used, from their run.created (undefined: mixed or unknown). */
function formatOf(records: readonly AttemptRecord[]): string | undefined {
  const formats = new Set(records.map((record) => record.experiment?.edit_format ?? routed));
  return formats.size === 1 ? [...formats][0] : undefined;
}

export function chooseEditFormats(records: readonly AttemptRecord[]): EditFormatChoice[] {
  const scores = scoreVariants(records);
  const models = [...new Set(records.map((record) => record.model))].sort();
  return models.map((model) => {
    const variants = scores
      .filter((score) => score.model === model)
      .map((score) => ({ score, format: formatOf(records.filter((record) => variantOf(record) === score.variant)) }))
      .filter((entry): entry is { score: (typeof scores)[number]; format: string } => entry.format !== undefined);
    // The baseline: the router's choice, the arm-less variant first.
    const baselines = variants.filter((entry) => entry.format === routed).sort((a, b) => Number(a.score.arm !== undefined) - Number(b.score.arm !== undefined));
    const baseline = baselines[0];
    const best = [...variants].sort((a, b) => b.score.pass_rate - a.score.pass_rate || Number(a.format !== routed) - Number(b.format !== routed))[0];
    const none: EditFormatChoice = { model, edit_format: routed, best: null, baseline: null, pairs: 0, p_value: null, significant: false };
    if (best === undefined) return none;
    const bestView = { variant: best.score.variant, edit_format: best.format, pass_rate: best.score.pass_rate };
    if (baseline === undefined || best.format === routed) {
      return { ...none, best: bestView, baseline: baseline ? { variant: baseline.score.variant, pass_rate: baseline.score.pass_rate } : null };
    }
    const comparison = comparePair(records, baseline.score.variant, best.score.variant);
    const wins = comparison.significant && comparison.only_b > comparison.only_a;
    return {
      model,
      edit_format: wins ? best.format : routed,
      best: bestView,
      baseline: { variant: baseline.score.variant, pass_rate: baseline.score.pass_rate },
      pairs: comparison.pairs,
      p_value: comparison.p_value,
      significant: comparison.significant,
      ...(wins ? { command: `aide models edit-format ${model} ${best.format}` } : {}),
    };
  });
}

/** The report's section: one line per model. */
export function editFormatMarkdown(choices: readonly EditFormatChoice[]): string[] {
  if (choices.length === 0) return [];
  const lines = ["", "## Edit format per model", "", "| model | best arm (edit format, pass rate) | router's choice (pass rate) | paired | McNemar p | choice |", "|---|---|---|---|---|---|"];
  const percent = (value: number) => `${(value * 100).toFixed(0)} %`;
  for (const choice of choices) {
    const best = choice.best ? `${choice.best.variant} (${choice.best.edit_format}, ${percent(choice.best.pass_rate)})` : "—";
    const baseline = choice.baseline ? `${choice.baseline.variant} (${percent(choice.baseline.pass_rate)})` : "—";
    const verdict = choice.command !== undefined ? `\`${choice.command}\`` : "keep the router's choice";
    lines.push(`| ${choice.model} | ${best} | ${baseline} | ${choice.pairs} | ${choice.p_value === null ? "—" : choice.p_value.toFixed(3)} | ${verdict} |`);
  }
  return lines;
}
