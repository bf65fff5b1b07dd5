/**
 * `aide eval run`: every selected task, for every model and repeat, in a fresh copy of its
 * project, through the real stack and headless (`aide run --json` with a policy that approves
 * edits and the allow-listed commands and refuses everything else, network included), within a
 * wall-clock budget, a few at a time; then the hidden check decides. Results go to
 * `<out>/results.jsonl`, each attempt's events to `<out>/events/<attempt>.jsonl` (replayable).
 */
import { spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EvalTaskSchema, type EvalTask } from "@aide/contracts";
import { AttemptRecordSchema, type AttemptRecord } from "./attempt-record.js";
import { runHiddenCheck } from "./run-hidden-check.js";
import { installRoot } from "../supervisor/aide-home.js";

/** Commands a task's session may run without asking: the languages' own runners. */
export const evalAllowedCommands = ["node", "npm test", "npm run test", "python3", "python", "bash", "sh", "ls", "cat", "grep"];

export interface EvalRunOptions {
  tasksDir: string;
  /** Task ids or globs (`js-*`); all when empty. */
  select: string[];
  models: string[];
  /** Models per task instead of `models` for every task (a scripted oracle per task). */
  modelsFor?: (task: EvalTask) => string[];
  repeat: number;
  parallel: number;
  /** Wall-clock budget of one attempt's session. */
  budgetMs: number;
  out: string;
  run: string;
  env: NodeJS.ProcessEnv;
  /** Folders a hidden check must not see. */
  hidden: string[];
  nodePath: string;
  onAttempt?: (record: AttemptRecord) => void;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
}

export class EvalTaskError extends Error {}

/** The suite's tasks (validated; an invalid task file names its field) matching the selection. */
export function loadEvalTasks(tasksDir: string, select: readonly string[]): EvalTask[] {
  if (!existsSync(tasksDir)) throw new EvalTaskError(`no task folder at ${tasksDir}`);
  const patterns = select.map(globToRegExp);
  const tasks: EvalTask[] = [];
  for (const id of readdirSync(tasksDir).sort()) {
    if (patterns.length > 0 && !patterns.some((pattern) => pattern.test(id))) continue;
    const file = join(tasksDir, id, "task.json");
    if (!existsSync(file)) continue;
    const parsed = EvalTaskSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success) throw new EvalTaskError(`${file}: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(task)"}: ${issue.message}`).join("; ")}`);
    if (parsed.data.source !== undefined) throw new EvalTaskError(`${file}: external-repository tasks are not run yet (they would need a network fetch)`);
    tasks.push(parsed.data);
  }
  if (tasks.length === 0) throw new EvalTaskError(`no task matches ${select.join(", ") || "(all)"} in ${tasksDir}`);
  return tasks;
}

interface SessionOutput {
  events: Array<{ type: string; session?: string; payload?: Record<string, unknown> }>;
  summary?: { outcome?: string; session?: string };
  exitCode: number | null;
  stderr: string;
}

/** One headless session: `aide run --json`, killed (with its process group) past the budget. */
function runSession(task: EvalTask, workspace: string, model: string, options: EvalRunOptions, eventsFile: string): Promise<SessionOutput> {
  const main = join(installRoot, "cli", "dist", "main.js");
  const args = [main, "run", "--json", "--workspace", workspace, "--model", model, "--auto-approve", "edits", ...evalAllowedCommands.flatMap((prefix) => ["--allow-command", prefix]), "--deny-rest", task.prompt];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const output: SessionOutput = { events: [], exitCode: null, stderr: "" };
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() === "") continue;
        appendFileSync(eventsFile, `${line}\n`);
        try {
          const value = JSON.parse(line) as { type?: string };
          if (value.type === "summary") output.summary = value as SessionOutput["summary"];
          else if (typeof value.type === "string") output.events.push(value as SessionOutput["events"][number]);
        } catch {
          // not JSON: kept in the events file as it came
        }
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (output.stderr = (output.stderr + chunk.toString("utf8")).slice(-4000)));
    const timer = setTimeout(() => {
      try { process.kill(-child.pid!, "SIGINT"); } catch { /* gone */ }
      setTimeout(() => { try { process.kill(-child.pid!, "SIGKILL"); } catch { /* gone */ } }, 10_000).unref();
    }, options.budgetMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      output.exitCode = code;
      resolve(output);
    });
  });
}

function outcomeOf(output: SessionOutput): { outcome: AttemptRecord["outcome"]; code?: string; result?: string } {
  const completed = output.events.findLast((event) => event.type === "run.completed");
  if (completed) return { outcome: completed.payload?.state === "done" ? "done" : "unverified", result: String(completed.payload?.result ?? "") };
  const failed = output.events.findLast((event) => event.type === "run.failed");
  if (failed) return { outcome: "failed", code: String(failed.payload?.code ?? "") };
  if (output.events.some((event) => event.type === "run.cancelled")) return { outcome: "aborted" };
  return { outcome: "error", code: output.exitCode === null ? "BUDGET_EXCEEDED" : `EXIT_${output.exitCode}` };
}

async function attempt(task: EvalTask, model: string, repeat: number, options: EvalRunOptions): Promise<AttemptRecord> {
  const id = `${task.id}--${model.replace(/[^A-Za-z0-9_.-]/g, "_")}--${repeat}`;
  const workspace = join(options.out, "work", id);
  mkdirSync(workspace, { recursive: true });
  cpSync(join(options.tasksDir, task.id, "project"), workspace, { recursive: true });
  mkdirSync(join(options.out, "events"), { recursive: true });
  const eventsFile = join(options.out, "events", `${id}.jsonl`);
  writeFileSync(eventsFile, "");
  const started = performance.now();
  const output = await runSession(task, workspace, model, options, eventsFile);
  const wallMs = performance.now() - started;
  const { outcome, code, result } = outcomeOf(output);
  const checkStarted = performance.now();
  const check = await runHiddenCheck({ task, taskDir: join(options.tasksDir, task.id), workspace, answer: result, scratch: options.out, hidden: options.hidden, nodePath: options.nodePath });
  const checkMs = performance.now() - checkStarted;
  const times = output.events.map((event) => Date.parse(String((event as { ts?: string }).ts ?? ""))).filter(Number.isFinite);
  const sessionMs = times.length > 1 ? Math.max(...times) - Math.min(...times) : 0;
  const responded = output.events.filter((event) => event.type === "model.responded");
  const tools = output.events.filter((event) => event.type === "tool.completed");
  const sum = (key: string) => responded.reduce((total, event) => total + Number(event.payload?.[key] ?? 0), 0);
  const record = AttemptRecordSchema.parse({
    run: options.run,
    attempt: id,
    task: task.id,
    language: task.language,
    category: task.category,
    difficulty: task.difficulty,
    model,
    repeat,
    outcome,
    ...(code ? { code } : {}),
    check_passed: check.passed,
    check_exit_code: check.exit_code,
    check_timed_out: check.timed_out,
    iterations: responded.length,
    prompt_tokens: sum("prompt_tokens"),
    completion_tokens: sum("completion_tokens"),
    tool_calls: tools.length,
    tool_errors: tools.filter((event) => event.payload?.is_error === true).length,
    model_ms: Math.round(sum("duration_ms")),
    wall_ms: Math.round(wallMs),
    session_ms: Math.round(sessionMs),
    check_ms: Math.round(checkMs),
    ...(output.summary?.session ? { session: output.summary.session } : {}),
    ...(outcome === "error" ? { error: output.stderr.trim().slice(-1000) } : {}),
    events: `events/${id}.jsonl`,
  });
  appendFileSync(join(options.out, "results.jsonl"), `${JSON.stringify(record)}\n`);
  options.onAttempt?.(record);
  return record;
}

/** Runs every attempt, `parallel` at a time; resolves with the records in completion order. */
export async function runEval(options: EvalRunOptions): Promise<AttemptRecord[]> {
  const tasks = loadEvalTasks(options.tasksDir, options.select);
  mkdirSync(options.out, { recursive: true });
  const queue = Array.from({ length: options.repeat }, (_, repeat) => tasks.flatMap((task) => (options.modelsFor?.(task) ?? options.models).map((model) => ({ task, model, repeat })))).flat();
  const records: AttemptRecord[] = [];
  const workers = Array.from({ length: Math.max(1, Math.min(options.parallel, queue.length)) }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) records.push(await attempt(next.task, next.model, next.repeat, options));
  });
  await Promise.all(workers);
  return records;
}
