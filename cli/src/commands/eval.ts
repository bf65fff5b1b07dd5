/**
 * `aide eval run` and `aide eval report` (eval/README.md). `run` uses the running stack, or starts
 * one that serves `$AIDE_HOME/eval` (or `--out`, when that lies elsewhere) and stops it at the end; a
 * running stack must serve that folder (`aide up --workspace ~/.aide/eval`), and `--out` outside it
 * with a stack running is refused before any attempt, naming the fix. One stack
 * serves every attempt. Exit codes: 0 every attempt ran (whatever its verdict), 1 the runner
 * failed, 2 bad arguments.
 */
import { resolve } from "node:path";
import { findStack, startStack, type StartedStack } from "../client/stack-discovery.js";
import { EvalTaskError, loadEvalTasks, runEval } from "../eval/run-eval.js";
import { fillPlan } from "../eval/fill-repeats.js";
import { readResults } from "../eval/eval-report.js";
import { ArmSyntaxError, parseArms, type EvalArm } from "../eval/parse-arm.js";
import { writeReport } from "../eval/write-report.js";
import { aideHome, installRoot } from "../supervisor/aide-home.js";
import { isInside } from "@aide/runtime";
import { join } from "node:path";
import { existsSync, mkdirSync } from "node:fs";

export interface EvalRunFlags {
  model: string;
  tasks?: string[];
  arm?: string[];
  repeat?: string;
  parallel?: string;
  budget?: string;
  maxIterations?: string;
  tasksDir?: string;
  out?: string;
  fetch?: boolean;
  /** Earlier run folders: only what their attempts lack to reach `repeat` runs (fill-repeats.ts). */
  fill?: string[];
}

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new EvalTaskError(`--${name} must be a positive whole number, not ${JSON.stringify(value)}`);
  return parsed;
}

export async function evalRun(flags: EvalRunFlags): Promise<number> {
  const home = aideHome();
  const models = flags.model
    .split(",")
    .map((model) => model.trim())
    .filter(Boolean);
  let repeat: number, parallel: number, budgetSeconds: number, arms: EvalArm[], maxIterations: number | undefined;
  let repeatsFor: ReturnType<typeof fillPlan>["repeatsFor"] | undefined;
  const tasksDir = resolve(flags.tasksDir ?? join(installRoot, "eval", "tasks"));
  try {
    if (models.length === 0) throw new EvalTaskError("--model names at least one model id");
    repeat = positiveInteger(flags.repeat, 1, "repeat");
    parallel = positiveInteger(flags.parallel, 2, "parallel");
    budgetSeconds = positiveInteger(flags.budget, 600, "budget");
    arms = parseArms(flags.arm ?? []);
    maxIterations = flags.maxIterations === undefined ? undefined : positiveInteger(flags.maxIterations, 25, "max-iterations");
    if (maxIterations !== undefined && maxIterations > 200) throw new EvalTaskError("--max-iterations is at most 200");
    if (flags.fill !== undefined && flags.fill.length > 0) {
      const earlier = flags.fill.map((dir) => resolve(dir));
      const missing = earlier.filter((dir) => !existsSync(join(dir, "results.jsonl")));
      if (missing.length > 0) throw new EvalTaskError(`--fill ${missing.join(", ")}: no results.jsonl there`);
      let records;
      try {
        records = readResults(earlier);
      } catch (error) {
        throw new EvalTaskError(`--fill: ${(error as Error).message}`);
      }
      const plan = fillPlan(records, repeat);
      repeatsFor = plan.repeatsFor;
      // Nothing missing: no stack is started and nothing is written.
      const attempts = plan.attempts(loadEvalTasks(tasksDir, flags.tasks ?? [], { fetch: false }), models, arms);
      if (attempts === 0) {
        process.stdout.write(`nothing to run: every selected task, model and arm has ${repeat} attempt${repeat === 1 ? "" : "s"} in ${earlier.join(", ")}\n`);
        return 0;
      }
      process.stderr.write(`aide eval: ${attempts} attempt${attempts === 1 ? "" : "s"} to fill ${earlier.join(", ")} up to ${repeat} per task, model and arm\n`);
    }
  } catch (error) {
    if (!(error instanceof EvalTaskError || error instanceof ArmSyntaxError)) throw error;
    process.stderr.write(`aide eval: ${error.message}\n`);
    return 2;
  }
  const run = `run-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  const evalRoot = join(home.root, "eval");
  const out = resolve(flags.out ?? join(evalRoot, run));
  const outside = !isInside(out, evalRoot);
  let connection = findStack();
  if (connection && outside) {
    // The running stack was not started for this folder; every attempt would end WORKSPACE_NOT_ALLOWED.
    process.stderr.write(
      `aide eval: --out ${out} is outside ${evalRoot}, and the running stack serves only the folders it was started with; stop it (the run then starts its own stack serving --out), start it with aide up --workspace ${out}, or leave --out out\n`,
    );
    return 2;
  }
  mkdirSync(out, { recursive: true });
  let started: StartedStack | undefined;
  try {
    if (!connection) {
      // A stack of the run's own serves the folder the attempts are copied into.
      started = await startStack({ workspace: outside ? out : evalRoot });
      connection = started.connection;
    }
    const records = await runEval({
      tasksDir,
      select: flags.tasks ?? [],
      fetch: flags.fetch === true,
      models,
      arms,
      connection,
      repeat,
      ...(repeatsFor !== undefined ? { repeatsFor } : {}),
      parallel,
      budgetMs: budgetSeconds * 1000,
      ...(maxIterations !== undefined ? { maxIterations } : {}),
      out,
      run,
      hidden: [home.root],
      nodePath: join(installRoot, "node_modules"),
      onAttempt: (record) =>
        process.stderr.write(
          `${record.check_passed ? "pass" : "FAIL"}  ${record.task}  ${record.model}${record.arm ? ` / ${record.arm}` : ""}  (${record.outcome}${record.code ? ` ${record.code}` : ""}, ${Math.round(record.wall_ms / 1000)} s)\n`,
        ),
    });
    const { markdown, files } = await writeReport(out, records);
    process.stdout.write(`${markdown}\nresults: ${join(out, "results.jsonl")}\nreport: ${files.join(", ")}\n`);
    // The report above is this run's; with the runs it filled it is one command away.
    if (flags.fill !== undefined && flags.fill.length > 0) process.stdout.write(`with the runs it filled: aide eval report ${[...flags.fill.map((dir) => resolve(dir)), out].join(" ")}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`aide eval: ${(error as Error).message}\n`);
    return error instanceof EvalTaskError ? 2 : 1;
  } finally {
    await started?.stop();
  }
}

/**
 * `aide eval report RUN…`: the scoreboard of one or more run folders, on stdout as markdown and
 * written (report.md, report.html, report.json, pass-vs-time.svg) into the last run's folder, or
 * into `--out`.
 */
export async function evalReport(runs: string[], flags: { out?: string }): Promise<number> {
  try {
    const dirs = runs.map((run) => resolve(run));
    const target = resolve(flags.out ?? dirs[dirs.length - 1]);
    const { markdown, files } = await writeReport(target, readResults(dirs));
    process.stdout.write(`${markdown}\nreport: ${files.join(", ")}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`aide eval report: ${(error as Error).message}\n`);
    return 1;
  }
}
