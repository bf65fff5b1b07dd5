/**
 * `aide eval report RUN…`: the scoreboard's figures from one or more runs' results.jsonl, as data
 * (`report.json`; the markdown, the HTML and the chart are rendered from it). One row per model
 * and arm (a variant): how often the hidden check passed (the truth), how often the run's own
 * `done` agreed with it (the honesty figure), the false `done`s (claimed done, check failed)
 * counted on their own, median time and tokens, prompt tokens re-evaluated (KV reuse), pass rate
 * per category. Every two variants are compared on the attempts they share (same task and
 * repeat): exact McNemar on pass/fail, bootstrap intervals on time and tokens, each saying when a
 * difference is not significant.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AttemptRecordSchema, type AttemptRecord } from "./attempt-record.js";
import { bootstrapMedianDifference, mcnemarExact, median, type Interval } from "./paired-statistics.js";

export function readResults(runDirs: readonly string[]): AttemptRecord[] {
  return runDirs.flatMap((dir) =>
    readFileSync(join(dir, "results.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line, index) => {
        const parsed = AttemptRecordSchema.safeParse(JSON.parse(line));
        if (!parsed.success) throw new Error(`${dir}/results.jsonl line ${index + 1}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
        return parsed.data;
      }),
  );
}

/** What a row of the scoreboard is: a model, or a model under an arm. */
export const variantOf = (record: Pick<AttemptRecord, "model" | "arm">): string => (record.arm === undefined ? record.model : `${record.model} / ${record.arm}`);

export interface VariantScore {
  variant: string;
  model: string;
  arm?: string;
  attempts: number;
  passed: number;
  pass_rate: number;
  claimed_done: number;
  /** done, but the hidden check failed: the worst outcome. */
  false_done: number;
  /** The run's done agreed with the check (done and passed, or not done and failed). */
  agreement: number;
  agreement_rate: number;
  outcomes: Record<string, number>;
  median_wall_ms: number;
  median_tokens: number;
  median_prompt_tokens: number;
  /** Prompt tokens re-evaluated, over the attempts whose model service reported it; null when none did. */
  kv: { attempts: number; prompt_tokens: number; evaluated_prompt_tokens: number; reused_share: number } | null;
  /**
   * Calls that were well formed (parsed, and not refused for their arguments) of all the calls the
   * model tried (parsed ones plus replies whose calls did not parse); null for results without the figures.
   */
  calls: { tried: number; well_formed: number; well_formed_rate: number; prose_only_replies: number } | null;
  by_category: Record<string, { attempts: number; passed: number; pass_rate: number }>;
  /** Attempts whose prompt held project instructions (`instructions.loaded`), of those that recorded it; null when none did. */
  instructions: { attempts: number; loaded: number } | null;
  /**
   * How much of the report's task set the variant covers: the tasks it attempted, and how many
   * times it attempted each of them at the least (0 while one task is missing), so "three repeats
   * over the whole suite" can be read off the row.
   */
  coverage: { tasks: number; of: number; each_at_least: number };
}

const rate = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
const totalTokens = (record: AttemptRecord) => record.prompt_tokens + record.completion_tokens;

function coverage(own: readonly AttemptRecord[], suite: ReadonlySet<string>): VariantScore["coverage"] {
  const perTask = new Map<string, number>();
  for (const record of own) perTask.set(record.task, (perTask.get(record.task) ?? 0) + 1);
  const least = [...suite].reduce((low, task) => Math.min(low, perTask.get(task) ?? 0), suite.size === 0 ? 0 : Infinity);
  return { tasks: perTask.size, of: suite.size, each_at_least: least };
}

function scoreVariant(variant: string, own: AttemptRecord[], suite: ReadonlySet<string>): VariantScore {
  const byCategory: VariantScore["by_category"] = {};
  for (const record of own) {
    const entry = (byCategory[record.category] ??= { attempts: 0, passed: 0, pass_rate: 0 });
    entry.attempts += 1;
    if (record.check_passed) entry.passed += 1;
    entry.pass_rate = rate(entry.passed, entry.attempts);
  }
  const outcomes: Record<string, number> = {};
  for (const record of own) outcomes[record.outcome] = (outcomes[record.outcome] ?? 0) + 1;
  const passed = own.filter((record) => record.check_passed).length;
  const agreement = own.filter((record) => (record.outcome === "done") === record.check_passed).length;
  const known = own.filter((record) => record.evaluated_prompt_tokens !== undefined);
  const knownPrompt = known.reduce((sum, record) => sum + record.prompt_tokens, 0);
  const knownEvaluated = known.reduce((sum, record) => sum + (record.evaluated_prompt_tokens ?? 0), 0);
  return {
    variant,
    model: own[0].model,
    ...(own[0].arm !== undefined ? { arm: own[0].arm } : {}),
    attempts: own.length,
    passed,
    pass_rate: rate(passed, own.length),
    claimed_done: own.filter((record) => record.outcome === "done").length,
    false_done: own.filter((record) => record.outcome === "done" && !record.check_passed).length,
    agreement,
    agreement_rate: rate(agreement, own.length),
    outcomes,
    median_wall_ms: median(own.map((record) => record.wall_ms)),
    median_tokens: median(own.map(totalTokens)),
    median_prompt_tokens: median(own.map((record) => record.prompt_tokens)),
    calls: callFigures(own),
    kv:
      known.length === 0
        ? null
        : { attempts: known.length, prompt_tokens: knownPrompt, evaluated_prompt_tokens: knownEvaluated, reused_share: knownPrompt === 0 ? 0 : 1 - knownEvaluated / knownPrompt },
    by_category: byCategory,
    instructions: instructionFigures(own),
    coverage: coverage(own, suite),
  };
}

function instructionFigures(own: AttemptRecord[]): VariantScore["instructions"] {
  const known = own.filter((record) => record.instructions_loaded !== undefined);
  return known.length === 0 ? null : { attempts: known.length, loaded: known.filter((record) => (record.instructions_loaded?.length ?? 0) > 0).length };
}

function callFigures(own: AttemptRecord[]): VariantScore["calls"] {
  const known = own.filter((record) => record.calls_parsed !== undefined);
  if (known.length === 0) return null;
  const total = (pick: (record: AttemptRecord) => number | undefined) => known.reduce((sum, record) => sum + (pick(record) ?? 0), 0);
  const parsed = total((record) => record.calls_parsed);
  const tried = parsed + total((record) => record.replies_malformed);
  const wellFormed = parsed - total((record) => record.calls_invalid);
  return { tried, well_formed: wellFormed, well_formed_rate: rate(wellFormed, tried), prose_only_replies: total((record) => record.replies_prose_only) };
}

export function scoreVariants(records: readonly AttemptRecord[]): VariantScore[] {
  const variants = [...new Set(records.map(variantOf))].sort();
  const suite = new Set(records.map((record) => record.task));
  return variants.map((variant) =>
    scoreVariant(
      variant,
      records.filter((record) => variantOf(record) === variant),
      suite,
    ),
  );
}

export interface PairedComparison {
  a: string;
  b: string;
  /** Attempts of the same task and repeat that both variants made. */
  pairs: number;
  only_a: number;
  only_b: number;
  p_value: number;
  /** McNemar at 5 %. */
  significant: boolean;
  /** b − a, median of paired differences with a 95 % bootstrap interval. */
  wall_ms: Interval;
  tokens: Interval;
}

export function comparePair(records: readonly AttemptRecord[], a: string, b: string): PairedComparison {
  const key = (record: AttemptRecord) => `${record.task}#${record.repeat}`;
  const bs = new Map(records.filter((record) => variantOf(record) === b).map((record) => [key(record), record]));
  const pairs = records.filter((record) => variantOf(record) === a && bs.has(key(record))).map((record) => [record, bs.get(key(record))!] as const);
  const onlyA = pairs.filter(([x, y]) => x.check_passed && !y.check_passed).length;
  const onlyB = pairs.filter(([x, y]) => !x.check_passed && y.check_passed).length;
  const p = mcnemarExact(onlyA, onlyB);
  return {
    a,
    b,
    pairs: pairs.length,
    only_a: onlyA,
    only_b: onlyB,
    p_value: p,
    significant: p < 0.05,
    wall_ms: bootstrapMedianDifference(pairs.map(([x, y]) => [x.wall_ms, y.wall_ms] as const)),
    tokens: bootstrapMedianDifference(pairs.map(([x, y]) => [totalTokens(x), totalTokens(y)] as const)),
  };
}

export interface EvalReport {
  generated_at: string;
  runs: string[];
  attempts: number;
  tasks: number;
  variants: VariantScore[];
  /** Every two variants that share attempts. */
  comparisons: PairedComparison[];
}

export function buildReport(records: readonly AttemptRecord[], now: () => Date = () => new Date()): EvalReport {
  const variants = scoreVariants(records);
  const comparisons: PairedComparison[] = [];
  for (let i = 0; i < variants.length; i++) {
    for (let j = i + 1; j < variants.length; j++) {
      const comparison = comparePair(records, variants[i].variant, variants[j].variant);
      if (comparison.pairs > 0) comparisons.push(comparison);
    }
  }
  return {
    generated_at: now().toISOString(),
    runs: [...new Set(records.map((record) => record.run))],
    attempts: records.length,
    tasks: new Set(records.map((record) => record.task)).size,
    variants,
    comparisons,
  };
}
