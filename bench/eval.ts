/**
 * npm run bench:eval — the eval runner's own overhead. A scripted oracle per task (built here from
 * the task's reference solution: read, write the solution's files, read them back, complete; for a
 * question, read and answer) runs over the whole suite through the real stack, as `aide eval run`
 * does. Per task: the runner's wall time (starting and following the session through the gateway, copying the project, the hidden
 * check in its sandbox) against the session's own time inside the stack (first to terminal event).
 * BENCH_EVAL_TASKS='go-*,rs-*' runs only those tasks and writes `eval-selected.json` instead.
 * BENCH_EVAL_ARMS (`;`-separated `NAME=SETTINGS`, as `aide eval run --arm`) runs every task once
 * per arm, and BENCH_EVAL_OUT names a folder under bench/results/ that gets the run's report
 * (McNemar between the arms; the oracles are one row per arm, model "oracle"), its results and
 * events, and the figures (`figures.json`) instead of eval.json. `npm run bench:eval-instructions`
 * runs the instructions tasks (`*-agents-*`) with instructions off and on this way: their oracle
 * follows the AGENTS.md only when it is in its prompt (lib/eval-oracle.ts).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadEvalTasks, parseArms, runEval, scoreVariants, startStack, writeReport, type AttemptRecord } from "@aide/cli/eval";
import { oracleReplies } from "./lib/eval-oracle.js";
import { benchRoot, percentile, repoRoot, writeBenchResult } from "./lib/results.js";

const tasksDir = join(repoRoot, "eval", "tasks");

async function main() {
  const home = mkdtempSync(join(tmpdir(), "aide-bench-eval-"));
  const select = (process.env.BENCH_EVAL_TASKS ?? "")
    .split(",")
    .map((glob) => glob.trim())
    .filter(Boolean);
  const tasks = loadEvalTasks(tasksDir, select);
  mkdirSync(join(home, "transcripts"));
  const models = tasks.map((task) => {
    const transcript = join(home, "transcripts", `${task.id}.json`);
    writeFileSync(transcript, JSON.stringify({ replies: oracleReplies(tasksDir, task) }));
    return { id: `oracle-${task.id}`, provider: "scripted", transcript };
  });
  writeFileSync(join(home, "models.json"), JSON.stringify({ default: models[0].id, models }));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_HOME: home, AIDE_MODEL_DISCOVERY: "off" };
  const stack = await startStack({ workspace: join(home, "eval"), env });
  const parallel = Number(process.env.BENCH_PARALLEL ?? 2);
  const arms = parseArms(
    (process.env.BENCH_EVAL_ARMS ?? "")
      .split(";")
      .map((arm) => arm.trim())
      .filter(Boolean),
  );
  const reportTo = process.env.BENCH_EVAL_OUT;
  let records: AttemptRecord[];
  const loadAtStart = Math.round(loadavg()[0] * 100) / 100;
  const started = performance.now();
  try {
    records = await runEval({
      tasksDir,
      select,
      models: [],
      modelsFor: (task) => [`oracle-${task.id}`],
      arms,
      connection: stack.connection,
      repeat: 1,
      parallel,
      budgetMs: 180_000,
      out: join(home, "eval", "bench"),
      run: "bench",
      hidden: [home],
      nodePath: join(repoRoot, "node_modules"),
      onAttempt: (r) =>
        process.stderr.write(
          `${r.check_passed ? "pass" : "FAIL"} ${r.task}${r.arm ? ` ${r.arm}` : ""} ${r.outcome}${r.code ? ` ${r.code}` : ""} wall ${r.wall_ms} ms, session ${r.session_ms} ms, check ${r.check_ms} ms\n`,
        ),
    });
  } finally {
    await stack.stop();
  }
  const totalMs = performance.now() - started;
  const overhead = records.map((r) => r.wall_ms + r.check_ms - r.session_ms);
  const sessionSum = records.reduce((sum, r) => sum + r.session_ms, 0);
  const overheadSum = overhead.reduce((sum, v) => sum + v, 0);
  // One oracle per task, scored and reported as one model ("oracle"): a row per arm, the arms paired on the tasks.
  const oracle = records.map((r) => ({ ...r, model: "oracle" }));
  const variants = scoreVariants(oracle);
  const total = (pick: (v: (typeof variants)[number]) => number) => variants.reduce((sum, v) => sum + pick(v), 0);
  const score = { passed: total((v) => v.passed), claimed_done: total((v) => v.claimed_done), false_done: total((v) => v.false_done) };
  const reportStarted = performance.now();
  await writeReport(join(home, "eval", "bench"), oracle);
  const reportMs = performance.now() - reportStarted;
  const figures = {
    tasks: records.length,
    parallel,
    checks_passed: score.passed,
    claimed_done: score.claimed_done,
    false_done: score.false_done,
    outcomes: Object.fromEntries([...new Set(records.map((r) => r.outcome))].map((o) => [o, records.filter((r) => r.outcome === o).length])),
    sessions_ms_sum: Math.round(sessionSum),
    runner_overhead_ms_sum: Math.round(overheadSum),
    overhead_ratio: Math.round((overheadSum / sessionSum) * 100) / 100,
    overhead_per_task_ms: { p50: Math.round(percentile(overhead, 50)), p90: Math.round(percentile(overhead, 90)) },
    check_ms: {
      p50: Math.round(
        percentile(
          records.map((r) => r.check_ms),
          50,
        ),
      ),
      p90: Math.round(
        percentile(
          records.map((r) => r.check_ms),
          90,
        ),
      ),
    },
    wall_ms_total: Math.round(totalMs),
    report_ms: Math.round(reportMs),
    runner: "sessions started and followed in the runner's process through the gateway (one long-lived stack); before: one `aide run --json` process per attempt",
    per_task: records.map((r) => ({
      task: r.task,
      outcome: r.outcome,
      ...(r.code ? { code: r.code } : {}),
      check_passed: r.check_passed,
      wall_ms: r.wall_ms,
      session_ms: r.session_ms,
      check_ms: r.check_ms,
    })),
    load_average_1m_at_start: loadAtStart,
    anchor: "the sum of the sessions' own time inside the stack (first to terminal event)",
    ...(select.length > 0 ? { selected: select } : {}),
    ...(arms.length > 0 ? { arm_settings: Object.fromEntries(arms.map((arm) => [arm.name, arm.settings])), variants } : {}),
  };
  process.stderr.write(`${JSON.stringify({ ...figures, per_task: undefined, variants: undefined })}\n`);
  if (reportTo !== undefined) {
    // The run's report, results and events beside its figures (the attempts' work folders are left out).
    const target = join(benchRoot, "results", reportTo);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(join(home, "eval", "bench"))) if (name !== "work") cpSync(join(home, "eval", "bench", name), join(target, name), { recursive: true });
  }
  process.stderr.write(`wrote ${writeBenchResult(reportTo !== undefined ? join(reportTo, "figures") : select.length > 0 ? "eval-selected" : "eval", figures)}\n`);
  rmSync(home, { recursive: true, force: true });
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
