/**
 * `aide eval report RUN…`: the scoreboard from one or more runs' results.jsonl, as markdown and
 * HTML. Per model: how often the hidden check passed (the truth), how often the run's own `done`
 * agreed with it, and the false `done`s (claimed done, check failed: the honesty figure), median
 * time and tokens, pass rate per category. Two models on the same tasks are compared pairwise
 * (McNemar on pass/fail, bootstrap intervals on time and tokens), saying when a difference is not
 * significant.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AttemptRecordSchema, type AttemptRecord } from "./attempt-record.js";
import { bootstrapMedianDifference, mcnemarExact, median } from "./paired-statistics.js";

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

export interface ModelScore {
  model: string;
  attempts: number;
  passed: number;
  claimed_done: number;
  /** done, but the hidden check failed. */
  false_done: number;
  /** The run's done agreed with the check (done and passed, or not done and failed). */
  agreement: number;
  median_wall_ms: number;
  median_tokens: number;
  by_category: Record<string, { attempts: number; passed: number }>;
}

export function scoreModels(records: readonly AttemptRecord[]): ModelScore[] {
  const models = [...new Set(records.map((record) => record.model))].sort();
  return models.map((model) => {
    const own = records.filter((record) => record.model === model);
    const byCategory: ModelScore["by_category"] = {};
    for (const record of own) {
      const entry = (byCategory[record.category] ??= { attempts: 0, passed: 0 });
      entry.attempts += 1;
      if (record.check_passed) entry.passed += 1;
    }
    return {
      model,
      attempts: own.length,
      passed: own.filter((record) => record.check_passed).length,
      claimed_done: own.filter((record) => record.outcome === "done").length,
      false_done: own.filter((record) => record.outcome === "done" && !record.check_passed).length,
      agreement: own.filter((record) => (record.outcome === "done") === record.check_passed).length,
      median_wall_ms: median(own.map((record) => record.wall_ms)),
      median_tokens: median(own.map((record) => record.prompt_tokens + record.completion_tokens)),
      by_category: byCategory,
    };
  });
}

export interface PairedComparison {
  a: string;
  b: string;
  pairs: number;
  only_a: number;
  only_b: number;
  p_value: number;
  wall_ms: ReturnType<typeof bootstrapMedianDifference>;
  tokens: ReturnType<typeof bootstrapMedianDifference>;
}

export function comparePair(records: readonly AttemptRecord[], a: string, b: string): PairedComparison {
  const key = (record: AttemptRecord) => `${record.task}#${record.repeat}`;
  const bs = new Map(records.filter((record) => record.model === b).map((record) => [key(record), record]));
  const pairs = records.filter((record) => record.model === a && bs.has(key(record))).map((record) => [record, bs.get(key(record))!] as const);
  const onlyA = pairs.filter(([x, y]) => x.check_passed && !y.check_passed).length;
  const onlyB = pairs.filter(([x, y]) => !x.check_passed && y.check_passed).length;
  return {
    a,
    b,
    pairs: pairs.length,
    only_a: onlyA,
    only_b: onlyB,
    p_value: mcnemarExact(onlyA, onlyB),
    wall_ms: bootstrapMedianDifference(pairs.map(([x, y]) => [x.wall_ms, y.wall_ms] as const)),
    tokens: bootstrapMedianDifference(pairs.map(([x, y]) => [x.prompt_tokens + x.completion_tokens, y.prompt_tokens + y.completion_tokens] as const)),
  };
}

const percent = (part: number, whole: number) => (whole === 0 ? "–" : `${Math.round((part / whole) * 1000) / 10} %`);

export function reportMarkdown(records: readonly AttemptRecord[]): string {
  const scores = scoreModels(records);
  const lines = [
    "# aide eval report",
    "",
    `${records.length} attempts, ${new Set(records.map((record) => record.task)).size} tasks, runs: ${[...new Set(records.map((record) => record.run))].join(", ")}.`,
    "A task passes when its hidden check passes; a false done is a run that claimed done while its check failed.",
    "",
    "| model | attempts | check passed | claimed done | false done | done agrees with check | median time | median tokens |",
    "|---|---|---|---|---|---|---|---|",
    ...scores.map((s) => `| ${s.model} | ${s.attempts} | ${s.passed} (${percent(s.passed, s.attempts)}) | ${s.claimed_done} | ${s.false_done} | ${percent(s.agreement, s.attempts)} | ${Math.round(s.median_wall_ms)} ms | ${Math.round(s.median_tokens)} |`),
    "",
    "## By category",
    "",
    "| model | category | attempts | check passed |",
    "|---|---|---|---|",
    ...scores.flatMap((s) => Object.entries(s.by_category).sort().map(([category, c]) => `| ${s.model} | ${category} | ${c.attempts} | ${c.passed} (${percent(c.passed, c.attempts)}) |`)),
  ];
  for (let i = 0; i < scores.length; i++) {
    for (let j = i + 1; j < scores.length; j++) {
      const c = comparePair(records, scores[i].model, scores[j].model);
      const verdict = c.p_value < 0.05 ? "significant at 5 %" : "not significant";
      lines.push(
        "",
        `## ${c.a} vs ${c.b} (${c.pairs} paired attempts)`,
        "",
        `- pass/fail: ${c.only_a} tasks passed only by ${c.a}, ${c.only_b} only by ${c.b}; exact McNemar p = ${c.p_value.toPrecision(3)} (${verdict}).`,
        `- time, ${c.b} − ${c.a}: median ${Math.round(c.wall_ms.estimate)} ms, 95 % interval [${Math.round(c.wall_ms.low)}, ${Math.round(c.wall_ms.high)}] (${c.wall_ms.significant ? "a difference" : "not significant"}).`,
        `- tokens, ${c.b} − ${c.a}: median ${Math.round(c.tokens.estimate)}, 95 % interval [${Math.round(c.tokens.low)}, ${Math.round(c.tokens.high)}] (${c.tokens.significant ? "a difference" : "not significant"}).`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The markdown report as a standalone HTML page (tables only; no script, no remote resource). */
export function reportHtml(markdown: string): string {
  const body: string[] = [];
  let table: string[][] | undefined;
  const flush = () => {
    if (!table) return;
    const [head, , ...rows] = table;
    body.push(`<table><thead><tr>${head.map((cell) => `<th>${escapeHtml(cell)}</th>`).join("")}</tr></thead><tbody>${rows.map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join("")}</tr>`).join("")}</tbody></table>`);
    table = undefined;
  };
  for (const line of markdown.split("\n")) {
    if (line.startsWith("|")) {
      (table ??= []).push(line.slice(1, -1).split("|").map((cell) => cell.trim()));
      continue;
    }
    flush();
    if (line.startsWith("## ")) body.push(`<h2>${escapeHtml(line.slice(3))}</h2>`);
    else if (line.startsWith("# ")) body.push(`<h1>${escapeHtml(line.slice(2))}</h1>`);
    else if (line.startsWith("- ")) body.push(`<p>${escapeHtml(line.slice(2))}</p>`);
    else if (line.trim() !== "") body.push(`<p>${escapeHtml(line)}</p>`);
  }
  flush();
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>aide eval report</title><style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style></head><body>${body.join("\n")}</body></html>\n`;
}
