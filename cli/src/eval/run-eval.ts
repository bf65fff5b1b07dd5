/**
 * `aide eval run`: every selected task, for every model, arm and repeat, in a fresh copy of its
 * project, through the real stack and headless (`run-session.ts`: the gateway's start and event
 * stream, with a policy that approves edits and the allow-listed commands and refuses everything
 * else, network included), within a wall-clock budget, a few at a time; then the hidden check
 * decides. The arm's settings go into the start (`experiment`): the assignment is the runner's,
 * and `run.created` records it. Results go to `<out>/results.jsonl`, each attempt's events to
 * `<out>/events/<attempt>.jsonl` (replayable).
 */
import { appendFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InstructionsLoadedPayloadSchema, RunExperimentSchema, defaultEditFormat, type EvalTask, type RunExperiment } from "@aide/contracts";
import { AttemptRecordSchema, type AttemptRecord } from "./attempt-record.js";
import { checkoutExternalProject, fetchExternalSource } from "./external-project.js";
import { loadEvalTasks } from "./load-eval-tasks.js";
import { runHiddenCheck } from "./run-hidden-check.js";
import { runSession, type SessionOutput } from "./run-session.js";
import type { EvalArm } from "./parse-arm.js";
import { createGatewayClient, type GatewayConnection } from "../client/gateway-client.js";

export { evalAllowedCommands } from "./run-session.js";
export { EvalTaskError, loadEvalTasks } from "./load-eval-tasks.js";

export interface EvalRunOptions {
  tasksDir: string;
  /** Task ids or globs (`js-*`); all when empty. */
  select: string[];
  models: string[];
  /** Models per task instead of `models` for every task (a scripted oracle per task). */
  modelsFor?: (task: EvalTask) => string[];
  /** A/B arms: every task and model runs once per arm and repeat; none, the defaults (no arm). */
  arms?: EvalArm[];
  /**
   * The repeat numbers to run for a task, model and arm instead of 0…repeat−1 (`--fill`: only
   * what earlier runs lack, fill-repeats.ts); an empty list runs that cell not at all.
   */
  repeatsFor?: (task: EvalTask, model: string, arm: EvalArm | undefined) => readonly number[];
  /** The stack's gateway: one long-lived stack serves every attempt. */
  connection: GatewayConnection;
  repeat: number;
  parallel: number;
  /** Wall-clock budget of one attempt's session. */
  budgetMs: number;
  /** Iteration budget of one attempt's run (the start's `max_iterations`); absent, the model's or the orchestrator's. */
  maxIterations?: number;
  out: string;
  run: string;
  /** Folders a hidden check must not see. */
  hidden: string[];
  nodePath: string;
  onAttempt?: (record: AttemptRecord) => void;
  /** Clone the repositories of external-repository tasks (`--fetch`) into `<out>/sources`. */
  fetch?: boolean;
  /**
   * Load every model before the first attempt (a session aborted at its first model request, in a
   * scratch workspace, never recorded as an attempt), so the first attempt on a model is not
   * charged its load (20-40 s for a local GGUF on two cores) and time compares like with like.
   */
  warmUp?: boolean;
  onWarmUp?: (model: string, ms: number, problem?: string) => void;
}

function outcomeOf(output: SessionOutput): { outcome: AttemptRecord["outcome"]; code?: string; result?: string } {
  const own = output.events.filter((event) => !(typeof event.depth === "number" && event.depth > 0));
  const completed = own.findLast((event) => event.type === "run.completed");
  if (completed) return { outcome: completed.payload?.state === "done" ? "done" : "unverified", result: String(completed.payload?.result ?? "") };
  const failed = own.findLast((event) => event.type === "run.failed");
  if (failed) return { outcome: "failed", code: String((failed.payload?.error as { code?: string } | undefined)?.code ?? "") };
  if (own.some((event) => event.type === "run.cancelled")) return { outcome: "aborted" };
  return { outcome: "error", code: output.error?.code ?? (output.gaveUp ? "BUDGET_EXCEEDED" : "NO_END") };
}

/** The run's experiment as its `run.created` recorded it (older stacks: the envelope's identifiers). */
function experimentOf(output: SessionOutput): RunExperiment | undefined {
  const created = output.events.find((event) => event.type === "run.created");
  if (!created) return undefined;
  const recorded = RunExperimentSchema.safeParse(created.payload?.experiment);
  if (recorded.success) return recorded.data;
  return { strategy: String(created.strategy ?? ""), scheduler: String(created.scheduler ?? ""), context_policy: String(created.context_policy ?? ""), edit_format: defaultEditFormat };
}

const safeName = (text: string) => text.replace(/[^A-Za-z0-9_.-]/g, "_");

async function attempt(task: EvalTask, model: string, arm: EvalArm | undefined, repeat: number, options: EvalRunOptions, caches: Map<string, string>): Promise<AttemptRecord> {
  const id = [task.id, safeName(model), ...(arm ? [arm.name] : []), String(repeat)].join("--");
  const workspace = join(options.out, "work", id);
  mkdirSync(workspace, { recursive: true });
  const cache = caches.get(task.id);
  if (cache !== undefined) checkoutExternalProject(task, join(options.tasksDir, task.id), cache, workspace);
  else cpSync(join(options.tasksDir, task.id, "project"), workspace, { recursive: true });
  mkdirSync(join(options.out, "events"), { recursive: true });
  const eventsFile = join(options.out, "events", `${id}.jsonl`);
  writeFileSync(eventsFile, "");
  const started = performance.now();
  const output = await runSession({
    client: createGatewayClient(options.connection),
    prompt: task.prompt,
    workspace,
    model,
    ...(arm ? { experiment: arm.settings } : {}),
    budgetMs: options.budgetMs,
    ...(options.maxIterations !== undefined ? { maxIterations: options.maxIterations } : {}),
    eventsFile,
  });
  const wallMs = performance.now() - started;
  const { outcome, code, result } = outcomeOf(output);
  const checkStarted = performance.now();
  const check = await runHiddenCheck({
    task,
    taskDir: join(options.tasksDir, task.id),
    workspace,
    answer: result,
    scratch: options.out,
    hidden: options.hidden,
    nodePath: options.nodePath,
    cacheDir: join(options.out, "check-caches"),
  });
  const checkMs = performance.now() - checkStarted;
  const times = output.events.map((event) => Date.parse(String(event.ts ?? ""))).filter(Number.isFinite);
  const sessionMs = times.length > 1 ? Math.max(...times) - Math.min(...times) : 0;
  const responded = output.events.filter((event) => event.type === "model.responded");
  const tools = output.events.filter((event) => event.type === "tool.completed");
  const sum = (key: string) => responded.reduce((total, event) => total + Number(event.payload?.[key] ?? 0), 0);
  // KV reuse only when the model service said what it evaluated (a local model): unknown is absent, never 0.
  const evaluatedKnown = responded.length > 0 && responded.every((event) => typeof event.payload?.evaluated_prompt_tokens === "number");
  const experiment = experimentOf(output);
  const loaded = output.events
    .filter((event) => event.type === "instructions.loaded" && !(typeof event.depth === "number" && event.depth > 0))
    .flatMap((event) => InstructionsLoadedPayloadSchema.safeParse(event.payload).data?.files ?? [])
    .map((file) => ({ path: file.path, tokens: file.tokens, truncated: file.truncated }));
  const record = AttemptRecordSchema.parse({
    run: options.run,
    attempt: id,
    task: task.id,
    language: task.language,
    category: task.category,
    difficulty: task.difficulty,
    model,
    ...(arm ? { arm: arm.name } : {}),
    repeat,
    outcome,
    ...(code ? { code } : {}),
    check_passed: check.passed,
    check_exit_code: check.exit_code,
    check_timed_out: check.timed_out,
    iterations: responded.length,
    prompt_tokens: sum("prompt_tokens"),
    completion_tokens: sum("completion_tokens"),
    ...(evaluatedKnown ? { evaluated_prompt_tokens: sum("evaluated_prompt_tokens") } : {}),
    tool_calls: tools.length,
    tool_errors: tools.filter((event) => event.payload?.is_error === true).length,
    calls_parsed: sum("tool_calls"),
    calls_invalid: tools.filter((event) => event.payload?.is_error === true && (event.payload?.metadata as { error_code?: string } | undefined)?.error_code === "VALIDATION").length,
    replies_malformed: responded.filter((event) => Number(event.payload?.call_errors ?? 0) > 0).length,
    replies_prose_only: responded.filter((event) => Number(event.payload?.tool_calls ?? 0) === 0 && Number(event.payload?.call_errors ?? 0) === 0).length,
    model_ms: Math.round(sum("duration_ms")),
    wall_ms: Math.round(wallMs),
    session_ms: Math.round(sessionMs),
    check_ms: Math.round(checkMs),
    ...(output.session ? { session: output.session } : {}),
    ...(experiment ? { experiment } : {}),
    instructions_loaded: loaded,
    ...(outcome === "error" && output.error ? { error: `${output.error.code}: ${output.error.message}`.slice(0, 1000) } : {}),
    events: `events/${id}.jsonl`,
  });
  appendFileSync(join(options.out, "results.jsonl"), `${JSON.stringify(record)}\n`);
  options.onAttempt?.(record);
  return record;
}

/** One throwaway session on `model` (in `<out>/warm-up`, removed after), aborted at its first model request: by then the model service has loaded it. */
async function warmUp(model: string, options: EvalRunOptions): Promise<void> {
  const workspace = join(options.out, "warm-up", safeName(model));
  mkdirSync(workspace, { recursive: true });
  const started = performance.now();
  const output = await runSession({ client: createGatewayClient(options.connection), prompt: "Say ok.", workspace, model, budgetMs: options.budgetMs, maxIterations: 1, abortAt: "model.requested" });
  const loaded = output.events.some((event) => event.type === "model.requested");
  options.onWarmUp?.(model, Math.round(performance.now() - started), loaded ? undefined : (output.error?.message ?? "the warm-up session ended before its first model request"));
}

/** Runs every attempt, `parallel` at a time; resolves with the records in completion order. */
export async function runEval(options: EvalRunOptions): Promise<AttemptRecord[]> {
  const tasks = loadEvalTasks(options.tasksDir, options.select, { fetch: options.fetch === true });
  mkdirSync(options.out, { recursive: true });
  // Every external repository is fetched before the first attempt: a bad URL or commit fails the run at once.
  const caches = new Map<string, string>();
  for (const task of tasks) if (task.source !== undefined) caches.set(task.id, fetchExternalSource(task.id, task.source, join(options.out, "sources")));
  const arms: Array<EvalArm | undefined> = options.arms && options.arms.length > 0 ? options.arms : [undefined];
  const everyRepeat = Array.from({ length: options.repeat }, (_, repeat) => repeat);
  const cells = tasks.flatMap((task) =>
    (options.modelsFor?.(task) ?? options.models).flatMap((model) => arms.map((arm) => ({ task, model, arm, repeats: options.repeatsFor?.(task, model, arm) ?? everyRepeat }))),
  );
  // Round by round (each cell's first repeat to run, then its second, …): a run stopped early has
  // covered the suite evenly.
  const rounds = cells.reduce((most, cell) => Math.max(most, cell.repeats.length), 0);
  const queue = Array.from({ length: rounds }, (_, round) => cells.flatMap(({ task, model, arm, repeats }) => (round < repeats.length ? [{ task, model, arm, repeat: repeats[round] }] : []))).flat();
  if (options.warmUp === true) {
    try {
      for (const model of [...new Set(queue.map((item) => item.model))]) await warmUp(model, options);
    } finally {
      rmSync(join(options.out, "warm-up"), { recursive: true, force: true });
    }
  }
  const records: AttemptRecord[] = [];
  const workers = Array.from({ length: Math.max(1, Math.min(options.parallel, queue.length)) }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) records.push(await attempt(next.task, next.model, next.arm, next.repeat, options, caches));
  });
  try {
    await Promise.all(workers);
  } finally {
    // The checks' build cache (compiled Go packages): only this run's checks share it.
    rmSync(join(options.out, "check-caches"), { recursive: true, force: true });
  }
  return records;
}
