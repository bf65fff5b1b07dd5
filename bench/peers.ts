/**
 * npm run bench:peers — aide, aider and mini-swe-agent side by side, on the same model, served
 * by the same loopback llama-server, on the same tasks, with the same budget per attempt; each
 * task's hidden check decides for all three.
 *
 * - The peers are installed at pinned versions into a venv in the model cache (once; bench/lib/peers-venv.ts).
 * - One GGUF (BENCH_MODEL: a catalog id, a file name in the model cache or a path; default
 *   qwen2.5-coder-1.5b) is served by one llama-server (`--jinja`, BENCH_THREADS threads, default 1;
 *   BENCH_CONTEXT tokens, default 16384; one slot), behind a counting proxy that gives each agent
 *   its own route, so every agent's chat calls are counted the same way.
 * - aide runs through its own stack (`aide up`) with the server as an OpenAI-compatible model
 *   (flavor llamacpp, the entry discovery would make for it), as `aide eval run` runs a task.
 * - aider and mini-swe-agent run as their users run them unattended (bench/lib/aider-attempt.ts,
 *   mini-attempt.ts), each in bubblewrap with the workspace and a fresh home writable.
 * - BENCH_TASKS (ids or globs, comma-separated; default a fixed subset of 14), BENCH_AGENTS
 *   (default all three), BENCH_BUDGET_S (default 600), BENCH_REPEAT (default 1), BENCH_RUN (the
 *   run's folder name), BENCH_NOTE (a line put at the top of the report).
 *
 * Attempts run one at a time (one agent on the server at once, so times compare). Rows go to
 * bench/results/peers/<run>/results.jsonl as each attempt ends, report.md and report.json at the
 * end; work folders in a temporary folder (removed), logs (the server's, each agent's output and
 * history, aide's events) in ~/.cache/aide/bench-peers/<run>. Ctrl-C stops the attempt in flight,
 * every process, and writes the report of the attempts that finished.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, homedir, loadavg, tmpdir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { loadEvalTasks, runEval, runHiddenCheck, startStack, type AttemptRecord } from "@aide/cli/eval";
import type { EvalTask } from "@aide/contracts";
import { findLlamaServer, modelCacheDir, modelCatalog } from "@aide/model";
import { runAiderAttempt } from "./lib/aider-attempt.js";
import { countsBetween, startCountingProxy, type CallCounts, type CountingProxy } from "./lib/counting-proxy.js";
import { runMiniAttempt } from "./lib/mini-attempt.js";
import type { PeerAttemptOutput } from "./lib/peer-attempt.js";
import { startPeersLlamaServer, type PeersLlamaServer } from "./lib/peers-llama-server.js";
import { buildPeersReport, peerAgents, peersMarkdown, PeerRowSchema, type PeerAgent, type PeerRow } from "./lib/peers-report.js";
import { ensurePeersVenv, peerPackages, PeersInstallError, type PeersVenv } from "./lib/peers-venv.js";
import { benchRoot, repoRoot } from "./lib/results.js";

/** The default tasks: Python, JavaScript, shell, Go and Rust; bugs, failing tests, a rename, a question. */
const defaultTasks = [
  "py-factorial-zero",
  "py-median-even",
  "py-failing-stack-test",
  "py-default-port",
  "js-demo-cart-total",
  "js-range-off-by-one",
  "js-rename-function",
  "js-slugify",
  "sh-exit-code",
  "sh-failing-trim-test",
  "go-reverse-words",
  "go-stack-pop-empty",
  "rs-fizzbuzz",
  "rs-stack-peek",
];

const list = (text: string | undefined, fallback: readonly string[]) =>
  text !== undefined && text.trim() !== ""
    ? text
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean)
    : [...fallback];
const safeName = (text: string) => text.replace(/[^A-Za-z0-9_.-]/g, "_");

/** The GGUF BENCH_MODEL names: a path, a catalog id, or a file name (with or without .gguf) in the model cache. */
function resolveModel(spec: string, cache: string): { id: string; file: string } {
  if (isAbsolute(spec) || spec.includes("/")) {
    if (!existsSync(spec)) throw new Error(`BENCH_MODEL ${spec} does not exist`);
    return { id: safeName(basename(spec).replace(/\.gguf$/i, "")), file: spec };
  }
  const known = (modelCatalog as Record<string, { fileName: string } | undefined>)[spec]?.fileName;
  const candidates = [known, spec, `${spec}.gguf`].filter((name): name is string => name !== undefined).map((name) => join(cache, name));
  const found =
    candidates.find((path) => existsSync(path) && statSync(path).isFile()) ??
    (existsSync(cache)
      ? readdirSync(cache)
          .filter((name) => name.toLowerCase().startsWith(spec.toLowerCase()) && name.endsWith(".gguf"))
          .map((name) => join(cache, name))[0]
      : undefined);
  if (found === undefined) throw new Error(`no GGUF for ${spec} in ${cache}; run \`aide models pull ${spec}\` or set BENCH_MODEL to a file`);
  return { id: safeName(spec.replace(/\.gguf$/i, "")), file: found };
}

function versionOf(binary: string): string {
  try {
    const text = execFileSync(binary, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 });
    return (
      text
        .split("\n")
        .find((line) => line.startsWith("version:"))
        ?.trim() ?? text.trim().split("\n")[0]
    );
  } catch (error) {
    const output = `${(error as { stdout?: string }).stdout ?? ""}${(error as { stderr?: string }).stderr ?? ""}`;
    return (
      output
        .split("\n")
        .find((line) => line.startsWith("version:"))
        ?.trim() ?? "unknown"
    );
  }
}

async function main() {
  const cache = modelCacheDir();
  const model = resolveModel(process.env.BENCH_MODEL ?? "qwen2.5-coder-1.5b", cache);
  const agents = list(process.env.BENCH_AGENTS, peerAgents) as PeerAgent[];
  const unknownAgents = agents.filter((agent) => !(peerAgents as readonly string[]).includes(agent));
  if (unknownAgents.length > 0) throw new Error(`unknown agent ${unknownAgents.join(", ")}; known: ${peerAgents.join(", ")}`);
  const budgetMs = Number(process.env.BENCH_BUDGET_S ?? 600) * 1000;
  const threads = Number(process.env.BENCH_THREADS ?? 1);
  const contextSize = Number(process.env.BENCH_CONTEXT ?? 16384);
  const repeat = Number(process.env.BENCH_REPEAT ?? 1);
  const tasksDir = join(repoRoot, "eval", "tasks");
  const tasks = loadEvalTasks(tasksDir, list(process.env.BENCH_TASKS, defaultTasks));
  const binary = findLlamaServer(process.env, { python: true });
  if (binary === undefined) throw new Error("no llama-server: run `aide models pull llama-server` (or set AIDE_LLAMA_SERVER)");
  const run = process.env.BENCH_RUN ?? `${new Date().toISOString().slice(0, 16).replace(/[:T]/g, "")}-${model.id}`;
  const outFolder = join(benchRoot, "results", "peers", safeName(run));
  if (existsSync(join(outFolder, "results.jsonl"))) throw new Error(`${outFolder} already holds a run; name another with BENCH_RUN`);
  const logs = join(homedir(), ".cache", "aide", "bench-peers", safeName(run));
  mkdirSync(logs, { recursive: true });

  const stop = new AbortController();
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  // One stop of aide's stack, however many ask: a second SIGTERM would end `aide up` before it
  // has stopped its services (its handler answers the first only).
  let stackStopping: Promise<void> | undefined;
  const stopStack = () => (stack === undefined ? Promise.resolve() : (stackStopping ??= stack.stop().catch(() => undefined)));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stop.signal.aborted) return;
      process.stderr.write(`\n${signal}: stopping the attempt in flight and every process; the finished attempts are kept\n`);
      stop.abort();
      // An aide attempt in flight ends when its stack goes.
      void stopStack();
    });
  }

  let venv: PeersVenv | undefined;
  if (agents.some((agent) => agent !== "aide")) {
    venv = await ensurePeersVenv(cache, { python: process.env.BENCH_PYTHON, signal: stop.signal, onStep: (line) => process.stderr.write(`${line}\n`) });
    process.stderr.write(`peers: ${venv.dir}${venv.installed ? " (installed now)" : ""}\n`);
  }

  const work = mkdtempSync(join(tmpdir(), "aide-bench-peers-"));
  const rows: PeerRow[] = [];
  let server: PeersLlamaServer | undefined;
  let proxy: CountingProxy | undefined;
  const started = performance.now();
  const loadAtStart = Math.round(loadavg()[0] * 100) / 100;
  const meta: Record<string, unknown> = {
    run,
    model: model.id,
    model_file: model.file,
    model_bytes: statSync(model.file).size,
    llama_server: { binary, version: versionOf(binary), args: `--jinja -t ${threads} -tb ${threads} -c ${contextSize} -np 1` },
    peers: peerPackages,
    agents,
    tasks: tasks.map((task) => task.id),
    repeat,
    budget_s: budgetMs / 1000,
    machine: { cpus: cpus().length, load_average_1m_at_start: loadAtStart },
    started_at: new Date().toISOString(),
    logs,
  };
  const writeRow = (row: PeerRow) => {
    rows.push(PeerRowSchema.parse(row));
    mkdirSync(outFolder, { recursive: true });
    appendFileSync(join(outFolder, "results.jsonl"), `${JSON.stringify(row)}\n`);
    process.stderr.write(
      `${row.passed ? "pass" : "fail"} ${row.task} ${row.agent} ${row.outcome}${row.false_claim ? " (claimed success)" : ""} ${Math.round(row.wall_ms / 1000)} s ${row.model_calls} calls\n`,
    );
  };

  try {
    server = await startPeersLlamaServer({ binary, file: model.file, alias: model.id, threads, contextSize, logFile: join(logs, "llama-server.log"), signal: stop.signal });
    proxy = await startCountingProxy(server.url);
    const aideHome = join(work, "aide-home");
    const aideOut = join(work, "aide-eval");
    if (agents.includes("aide")) {
      mkdirSync(aideHome, { recursive: true });
      // What discovery makes of a llama-server it finds (discover-servers.ts), at this server's window.
      const spec = {
        id: model.id,
        provider: "openai",
        baseUrl: `${proxy.url}/aide/v1`,
        model: model.id,
        flavor: "llamacpp",
        contextBudget: contextSize,
        maxOutputTokens: Math.min(1024, Math.floor(contextSize / 4)),
        timeoutMs: budgetMs,
        maxRetries: 2,
      };
      writeFileSync(join(aideHome, "models.json"), JSON.stringify({ default: model.id, models: [spec] }));
      meta.aide_model = spec;
      // The attempts' workspaces are made under aideOut: the stack's workspace root.
      mkdirSync(aideOut, { recursive: true });
      stack = await startStack({ workspace: aideOut, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? homedir(), AIDE_HOME: aideHome, AIDE_MODEL_DISCOVERY: "off" } });
    }
    let warmedUp = false;

    const aideAttempt = async (task: EvalTask, attemptRepeat: number): Promise<PeerRow | undefined> => {
      let before = proxy!.counts("aide");
      const records: AttemptRecord[] = await runEval({
        tasksDir,
        select: [task.id],
        models: [model.id],
        connection: stack!.connection,
        repeat: attemptRepeat + 1,
        repeatsFor: () => [attemptRepeat],
        parallel: 1,
        budgetMs,
        out: aideOut,
        run,
        hidden: [work],
        nodePath: join(repoRoot, "node_modules"),
        // The first attempt is not charged the model's probe and first load: a warm-up session takes them.
        warmUp: !warmedUp,
        onWarmUp: (_model, ms, problem) => {
          const calls = countsBetween(before, proxy!.counts("aide")).calls;
          meta.aide_warm_up = { ms, calls, ...(problem !== undefined ? { problem } : {}) };
          process.stderr.write(`aide warm-up ${Math.round(ms / 1000)} s, ${calls} calls${problem !== undefined ? ` (${problem})` : ""}\n`);
          before = proxy!.counts("aide");
        },
      });
      warmedUp = true;
      const record = records[0];
      if (stop.signal.aborted || record === undefined) return undefined;
      const counts = countsBetween(before, proxy!.counts("aide"));
      return {
        ...base(task, "aide", attemptRepeat, counts),
        attempt: record.attempt,
        outcome: record.outcome,
        ...(record.code !== undefined ? { code: record.code } : {}),
        claimed: record.outcome === "done",
        passed: record.check_passed,
        false_claim: record.outcome === "done" && !record.check_passed,
        wall_ms: record.wall_ms,
        timed_out: record.outcome === "aborted" || record.code === "BUDGET_EXCEEDED",
        check_ms: record.check_ms ?? 0,
        check_exit_code: record.check_exit_code ?? null,
        check_timed_out: record.check_timed_out ?? false,
        ...(record.error !== undefined ? { error: record.error } : {}),
      };
    };

    const peerAttempt = async (task: EvalTask, agent: Exclude<PeerAgent, "aide">, attemptRepeat: number): Promise<PeerRow | undefined> => {
      const attempt = `${task.id}--${agent}--${attemptRepeat}`;
      const dir = join(work, "work", attempt);
      const workspace = join(dir, "workspace");
      const home = join(dir, "home");
      mkdirSync(home, { recursive: true });
      cpSync(join(tasksDir, task.id, "project"), workspace, { recursive: true });
      const before = proxy!.counts(agent);
      const input = {
        command: agent === "aider" ? venv!.aider : venv!.mini,
        sandbox: { workspace, home },
        prompt: task.prompt,
        category: task.category,
        apiBase: `${proxy!.url}/${agent}/v1`,
        alias: model.id,
        budgetMs,
        signal: stop.signal,
        logFile: join(logs, `${attempt}.log`),
      };
      const output: PeerAttemptOutput = agent === "aider" ? await runAiderAttempt(input) : await runMiniAttempt(input);
      if (stop.signal.aborted) return undefined;
      const counts = countsBetween(before, proxy!.counts(agent));
      // aider's own files (its tag cache) are not the agent's work: the check sees the project as the agent changed it.
      for (const name of readdirSync(workspace)) if (name.startsWith(".aider")) rmSync(join(workspace, name), { recursive: true, force: true });
      for (const name of readdirSync(home)) if (/^(aider-chat\.md|aider-llm\.txt|mini-trajectory\.json)$/.test(name)) cpSync(join(home, name), join(logs, `${attempt}--${name}`));
      const checkStarted = performance.now();
      const check = await runHiddenCheck({
        task,
        taskDir: join(tasksDir, task.id),
        workspace,
        answer: output.answer,
        scratch: dir,
        hidden: [work],
        nodePath: join(repoRoot, "node_modules"),
        cacheDir: join(work, "check-caches"),
      });
      rmSync(dir, { recursive: true, force: true });
      return {
        ...base(task, agent, attemptRepeat, counts),
        attempt,
        outcome: output.outcome,
        claimed: output.claimed,
        passed: check.passed,
        false_claim: output.claimed && !check.passed,
        wall_ms: output.run.wallMs,
        timed_out: output.run.timedOut,
        check_ms: Math.round(performance.now() - checkStarted),
        check_exit_code: check.exit_code,
        check_timed_out: check.timed_out,
        ...(output.run.startError !== undefined ? { error: output.run.startError } : {}),
      };
    };

    const base = (task: EvalTask, agent: PeerAgent, attemptRepeat: number, counts: CallCounts) => ({
      run,
      task: task.id,
      language: task.language,
      category: task.category,
      agent,
      model: model.id,
      repeat: attemptRepeat,
      model_calls: counts.calls,
      failed_calls: counts.failed,
      prompt_tokens: counts.prompt_tokens,
      completion_tokens: counts.completion_tokens,
      calls_with_usage: counts.with_usage,
    });

    // Task by task, every agent on each: a run stopped early has compared the agents on the same tasks.
    outer: for (let attemptRepeat = 0; attemptRepeat < repeat; attemptRepeat++) {
      for (const task of tasks) {
        for (const agent of agents) {
          if (stop.signal.aborted) break outer;
          const row = agent === "aide" ? await aideAttempt(task, attemptRepeat) : await peerAttempt(task, agent, attemptRepeat);
          if (row !== undefined) writeRow(row);
        }
      }
    }
  } finally {
    await stopStack();
    await proxy?.close();
    await server?.close();
    const events = join(work, "aide-eval", "events");
    if (existsSync(events)) cpSync(events, join(logs, "aide-events"), { recursive: true });
    rmSync(work, { recursive: true, force: true });
  }

  meta.wall_s = Math.round((performance.now() - started) / 1000);
  meta.finished_at = new Date().toISOString();
  if (stop.signal.aborted) meta.stopped = true;
  const report = buildPeersReport(rows, agents, meta);
  mkdirSync(outFolder, { recursive: true });
  writeFileSync(join(outFolder, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  const notes = [
    ...(process.env.BENCH_NOTE !== undefined ? [`**${process.env.BENCH_NOTE}**`, ""] : []),
    `Model ${model.id} (${basename(model.file)}) on one llama-server (${String(meta.llama_server && (meta.llama_server as { version: string }).version)}, \`${(meta.llama_server as { args: string }).args}\`), ${tasks.length} tasks × ${repeat}, ${budgetMs / 1000} s per attempt, one attempt at a time; aider-chat ${peerPackages["aider-chat"]}, mini-swe-agent ${peerPackages["mini-swe-agent"]}.${stop.signal.aborted ? " Stopped by hand: only the attempts that finished." : ""}`,
    "",
    "How each agent ran: aide through its stack with the server as an OpenAI-compatible model (flavor llamacpp, as discovery adds one), its eval approval policy (edits and the languages' runners approved, the rest refused); aider with `--yes-always --no-git --message TASK` and every text file of the project added (not dotfiles), its own settings for an unknown model otherwise; mini-swe-agent `mini -y --exit-immediately -l 0` with its default config. aider and mini-swe-agent ran in bubblewrap with the workspace and a fresh home writable. Model calls: the chat calls a counting proxy forwarded for the attempt. Claimed success: aide's run ended done; aider applied an edit (a question: it answered); mini-swe-agent submitted. The hidden check decides passed.",
  ];
  writeFileSync(join(outFolder, "report.md"), peersMarkdown(report, notes));
  process.stderr.write(`wrote ${outFolder} (${rows.length} attempts; logs in ${logs})\n`);
  if (stop.signal.aborted) process.exitCode = 130;
}

main().catch((error) => {
  // An install that could not be made says why in words; anything else shows where it broke.
  process.stderr.write(`${error instanceof PeersInstallError ? error.message : error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
