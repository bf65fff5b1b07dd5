import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "./attempt-record.js";
import { buildReport } from "./eval-report.js";
import { writeReport } from "./write-report.js";

/** A synthetic attempt: only the fields the report reads vary. */
function attempt(task: number, model: string, arm: string | undefined, passed: boolean, outcome: AttemptRecord["outcome"], wallMs: number, tokens: number, evaluated?: number): AttemptRecord {
  return {
    run: "synthetic",
    attempt: `t${task}-${model}-${arm}`,
    task: `t${task}`,
    language: "python",
    category: task % 2 === 0 ? "bug" : "feature",
    difficulty: "easy",
    model,
    ...(arm ? { arm } : {}),
    repeat: 0,
    outcome,
    check_passed: passed,
    check_exit_code: passed ? 0 : 1,
    check_timed_out: false,
    iterations: 3,
    prompt_tokens: tokens,
    completion_tokens: 0,
    ...(evaluated !== undefined ? { evaluated_prompt_tokens: evaluated } : {}),
    tool_calls: 3,
    tool_errors: 0,
    model_ms: 10,
    wall_ms: wallMs,
    session_ms: wallMs,
    check_ms: 5,
    events: "events/x.jsonl",
  };
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("the eval report", () => {
  // 20 tasks: arm "b" passes every task; arm "a" passes the first 6. b is slower by 1 s and uses 500 tokens more.
  const records = Array.from({ length: 20 }, (_, task) => [
    attempt(task, "m", "a", task < 6, task < 6 ? "done" : task < 9 ? "done" : "unverified", 10_000 + (task % 3) * 10, 2000 + (task % 4)),
    attempt(task, "m", "b", true, "done", 11_000 + (task % 5) * 10, 2500 + (task % 3), 1000),
  ]).flat();

  it("the well-formed-call rate: parsed calls not refused for their arguments, of parsed calls plus replies whose calls did not parse", () => {
    const withCalls = (record: AttemptRecord, parsed: number, invalid: number, malformed: number, prose: number): AttemptRecord => ({
      ...record,
      calls_parsed: parsed,
      calls_invalid: invalid,
      replies_malformed: malformed,
      replies_prose_only: prose,
    });
    const own = [withCalls(attempt(1, "m", "g", true, "done", 1000, 100), 4, 1, 1, 0), withCalls(attempt(2, "m", "g", false, "failed", 1000, 100), 0, 0, 3, 2)];
    const [score] = buildReport(own, () => new Date("2026-01-01T00:00:00Z")).variants;
    // 4 parsed + 4 malformed replies tried; 3 of them well formed.
    expect(score.calls).toEqual({ tried: 8, well_formed: 3, well_formed_rate: 3 / 8, prose_only_replies: 2 });
    expect(buildReport([attempt(1, "m", "old", true, "done", 1000, 100)], () => new Date()).variants[0].calls).toBeNull();
  });

  it("scores each model/arm: pass rate, honesty figure, false dones apart, medians, KV reuse, categories", () => {
    const report = buildReport(records, () => new Date("2026-01-01T00:00:00Z"));
    const [a, b] = report.variants;
    expect(a).toMatchObject({ variant: "m / a", attempts: 20, passed: 6, pass_rate: 0.3, claimed_done: 9, false_done: 3, agreement: 17, outcomes: { done: 9, unverified: 11 } });
    expect(a.kv).toBeNull();
    expect(b).toMatchObject({ variant: "m / b", passed: 20, false_done: 0, agreement: 20, agreement_rate: 1 });
    expect(b.kv).toMatchObject({ attempts: 20, evaluated_prompt_tokens: 20_000 });
    expect(b.kv!.reused_share).toBeCloseTo(1 - 20_000 / b.kv!.prompt_tokens, 10);
    expect(a.by_category.bug).toEqual({ attempts: 10, passed: 3, pass_rate: 0.3 });
  });

  it("compares the arms pairwise with known answers, and says not significant where it is not", () => {
    const report = buildReport(records);
    const [comparison] = report.comparisons;
    // 14 discordant pairs, all for b: p = 2 * 0.5^14.
    expect(comparison).toMatchObject({ a: "m / a", b: "m / b", pairs: 20, only_a: 0, only_b: 14, significant: true });
    expect(comparison.p_value).toBeCloseTo(2 / 2 ** 14, 12);
    expect(comparison.wall_ms.significant).toBe(true);
    expect(comparison.wall_ms.low).toBeGreaterThan(900);
    expect(comparison.tokens.estimate).toBeGreaterThan(490);
    // Two arms that pass the same tasks at the same cost: nothing to report.
    const same = buildReport([
      ...Array.from({ length: 10 }, (_, task) => attempt(task, "m", "x", task < 5, "done", 1000 + task, 100)),
      ...Array.from({ length: 10 }, (_, task) => attempt(task, "m", "y", task < 5, "done", 1000 + ((task * 7) % 10), 100)),
    ]);
    expect(same.comparisons[0]).toMatchObject({ only_a: 0, only_b: 0, p_value: 1, significant: false });
    expect(same.comparisons[0].tokens.significant).toBe(false);
  });

  it("says how much of the suite each arm covers: every task at least k times, or how many tasks it has", async () => {
    // Arm "full" tries tasks 0-3 twice each (task 2 three times); arm "part" only tasks 0 and 1.
    const twice = [0, 1, 2, 3, 0, 1, 2, 3, 2].map((task) => attempt(task, "m", "full", false, "failed", 1000, 100));
    const part = [0, 1].map((task) => attempt(task, "m", "part", false, "failed", 1000, 100));
    const report = buildReport([...twice, ...part]);
    expect(report.variants.map((s) => s.coverage)).toEqual([
      { tasks: 4, of: 4, each_at_least: 2 },
      { tasks: 2, of: 4, each_at_least: 0 },
    ]);
    const dir = mkdtempSync(join(tmpdir(), "aide-eval-report-"));
    dirs.push(dir);
    await writeReport(dir, [...twice, ...part]);
    const markdown = readFileSync(join(dir, "report.md"), "utf8");
    expect(markdown).toContain("| m / full | 9 | 4 × 2 | 0 (0 %) |");
    expect(markdown).toContain("| m / part | 2 | 2 of 4 | 0 (0 %) |");
  });

  it("counts the attempts whose prompt held project instructions, and says so per arm when any did", async () => {
    const loaded = [{ path: "AGENTS.md", tokens: 80, truncated: false }];
    const own = [
      { ...attempt(1, "m", "instructions-off", false, "done", 1000, 100), instructions_loaded: [] },
      { ...attempt(1, "m", "instructions-on", true, "done", 1000, 180), instructions_loaded: loaded },
      { ...attempt(2, "m", "instructions-on", true, "done", 1000, 180), instructions_loaded: loaded },
      { ...attempt(2, "m", "instructions-off", true, "done", 1000, 100), instructions_loaded: [] },
    ];
    const report = buildReport(own);
    expect(report.variants.map((s) => s.instructions)).toEqual([
      { attempts: 2, loaded: 0 },
      { attempts: 2, loaded: 2 },
    ]);
    expect(buildReport([attempt(1, "m", "old", true, "done", 1000, 100)]).variants[0].instructions).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), "aide-eval-report-"));
    dirs.push(dir);
    await writeReport(dir, own);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toContain(
      "Project instructions in the prompt (`instructions.loaded`): m / instructions-off: 0 of 2 attempts; m / instructions-on: 2 of 2 attempts.",
    );
  });

  it("writes report.md, report.html (chart inline), report.json and a vega SVG with one point per model/arm", async () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-eval-report-"));
    dirs.push(dir);
    const three = [...records, ...Array.from({ length: 20 }, (_, task) => attempt(task, "other", undefined, task < 10, "done", 5000, 900))];
    await writeReport(dir, three);
    const svg = readFileSync(join(dir, "pass-vs-time.svg"), "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    const symbols = svg.match(/<g class="mark-symbol role-mark[^>]*>([\s\S]*?)<\/g>/);
    expect(symbols).not.toBeNull();
    expect(symbols![1].match(/<path /g)).toHaveLength(3);
    expect(svg).toContain("m / a");
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).toContain("<figure><svg");
    expect(html).not.toMatch(/<script/i);
    const markdown = readFileSync(join(dir, "report.md"), "utf8");
    expect(markdown).toContain("| m / a | 20 | 20 × 1 | 6 (30 %) | 9 | 3 | 85 % |");
    expect(markdown).toContain("| m / b | 20 | 20 × 1 | 20 (100 %) | 20 | 0 | 100 % | not recorded | 11 s | 2501 | 20000 of");
    expect(markdown).toContain("| other | 20 | 20 × 1 | 10 (50 %)");
    expect(markdown).toMatch(/## m \/ a vs m \/ b \(20 paired attempts\)\n\n- pass\/fail: 0 passed only by m \/ a, 14 only by m \/ b; exact McNemar p = 0\.000122 \(significant at 5 %\)/);
    const json = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
    expect(json).toMatchObject({ attempts: 60, tasks: 20, chart: "pass-vs-time.svg" });
    expect(json.variants).toHaveLength(3);
    expect(json.comparisons).toHaveLength(3);
  });
});
