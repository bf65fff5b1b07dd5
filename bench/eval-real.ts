/**
 * npm run bench:eval-real — `aide eval` on the real small models the install step fetched
 * (`scripts/install.sh --with-models`: SmolLM2-135M-Instruct and Gemma 3 270M into the shared model
 * cache). Every task of the suite (or BENCH_TASKS, comma-separated ids or globs), every model
 * (BENCH_MODELS), every arm (BENCH_ARMS, `;`-separated `NAME=SETTINGS` as `aide eval run --arm`
 * takes them) and BENCH_REPEAT repeats run through the real stack, headless, with the hidden
 * checks deciding. The report (`report.md/html/json`, `pass-vs-time.svg`, `results.jsonl`) lands
 * in bench/results/eval-real/ (BENCH_OUT names another folder: `bench:demo-real` writes demo-real/),
 * beside `figures.json` (wall time, load, tokens/s per model, each arm's settings).
 * A model that is not in the cache is named and left out; none at all is an error. BENCH_FILL
 * names earlier run folders: then only what they lack to reach BENCH_REPEAT attempts per task,
 * model and arm runs (a run stopped for the test suite is resumed by running it again).
 *
 * Time (bench/results/eval-real-time-notes.md): the model service probes a model on its first
 * run (20-50 s on two cores) and caches the profile under AIDE_HOME; this bench's AIDE_HOME is a
 * fresh folder, so the profiles are kept between runs in BENCH_PROFILE_CACHE (default
 * ~/.cache/aide/eval-real-profiles; keyed by the model file's path, size, time and window, so a
 * new file is probed again), and each model is loaded by a warm-up session before the first
 * attempt, so no attempt is charged a probe or a load.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir, loadavg, tmpdir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { fillPlan, loadEvalTasks, parseArms, readResults, runEval, scoreVariants, startStack, writeReport, type AttemptRecord } from "@aide/cli/eval";
import { modelCatalog, realModelIds } from "@aide/model";
import { benchRoot, repoRoot } from "./lib/results.js";

const cache = process.env.AIDE_MODEL_CACHE ?? join(homedir(), ".cache", "aide", "models");

/** The real models this bench knows: the catalog `aide models pull` fetches from. */
const knownModels: Record<string, string> = Object.fromEntries(realModelIds.map((id) => [id, modelCatalog[id].fileName]));

/** The default arms: the baseline (the defaults in force) against one change each. */
const defaultArms = ["baseline", "grammar-off=grammar=off", "tier-full=prompt_tier=full", "search-replace=edit_format=search-replace", "whole-file=edit_format=whole-file"].join(";");

const list = (text: string | undefined, fallback: string, separator: string) =>
  (text ?? fallback)
    .split(separator)
    .map((part) => part.trim())
    .filter(Boolean);

async function main() {
  const wanted = list(process.env.BENCH_MODELS, Object.keys(knownModels).join(","), ",");
  const unknown = wanted.filter((id) => !(id in knownModels));
  if (unknown.length > 0) throw new Error(`unknown model ${unknown.join(", ")}; known: ${Object.keys(knownModels).join(", ")}`);
  const present = wanted.filter((id) => existsSync(join(cache, knownModels[id])));
  for (const id of wanted.filter((id) => !present.includes(id))) process.stderr.write(`left out: ${id} (${join(cache, knownModels[id])} is absent; run scripts/install.sh --with-models)\n`);
  if (present.length === 0) throw new Error(`no real model in ${cache}; run scripts/install.sh --with-models first`);
  const arms = parseArms(list(process.env.BENCH_ARMS, defaultArms, ";"));
  const repeat = Number(process.env.BENCH_REPEAT ?? 3);
  const parallel = Number(process.env.BENCH_PARALLEL ?? 2);
  const maxIterations = Number(process.env.BENCH_MAX_ITERATIONS ?? 10);
  const budgetMs = Number(process.env.BENCH_BUDGET_S ?? 240) * 1000;
  // BENCH_FILL (comma-separated run folders, under bench/results or absolute): only the attempts
  // they lack to reach BENCH_REPEAT per task, model and arm, numbered after theirs (aide eval run --fill).
  const fill = list(process.env.BENCH_FILL, "", ",").map((dir) => (isAbsolute(dir) ? dir : join(benchRoot, "results", dir)));
  const plan = fill.length > 0 ? fillPlan(readResults(fill), repeat) : undefined;
  // The bench replaces its output folder at the end: never one it fills.
  const outFolder = join(benchRoot, "results", process.env.BENCH_OUT ?? "eval-real");
  if (fill.some((dir) => dir === outFolder || dir.startsWith(`${outFolder}/`))) throw new Error(`BENCH_OUT ${outFolder} holds a run BENCH_FILL names; write the new attempts to a folder of their own`);
  if (plan !== undefined) {
    const planned = plan.attempts(loadEvalTasks(join(repoRoot, "eval", "tasks"), list(process.env.BENCH_TASKS, "", ",")), present, arms);
    if (planned === 0) {
      process.stderr.write(`nothing to fill: every task, model and arm has ${repeat} attempts in the BENCH_FILL runs\n`);
      return;
    }
    process.stderr.write(`filling: ${planned} attempts\n`);
  }

  const home = mkdtempSync(join(tmpdir(), "aide-bench-eval-real-"));
  // The model service's probe profiles, kept from the last run (model-state/profiles under AIDE_HOME).
  const profileCache = process.env.BENCH_PROFILE_CACHE ?? join(homedir(), ".cache", "aide", "eval-real-profiles");
  const profiles = join(home, "model-state", "profiles");
  mkdirSync(profiles, { recursive: true });
  if (existsSync(profileCache)) cpSync(profileCache, profiles, { recursive: true });
  // One thread per session: two sessions side by side fill the two cores, and llama.cpp's threads
  // spin badly when they outnumber the free cores (VERIFIED.md).
  // BENCH_FLASH_ATTENTION=off runs the contexts without flash attention (the model service's
  // default is on since issue 28 item 4; off is the earlier behaviour, for before/after runs).
  const flash = process.env.BENCH_FLASH_ATTENTION === "off" ? { flashAttention: false } : {};
  const models = present.map((id) => ({ id, provider: "llama", file: join(cache, knownModels[id]), threads: 1, maxSessions: parallel, maxOutputTokens: 512, ...flash }));
  writeFileSync(join(home, "models.json"), JSON.stringify({ default: models[0].id, models }));
  // AIDE_MODEL_PREFIX_CACHE=0 passes through: the prefix cache's before/after (eval-real-time-notes.md).
  const prefixCache = process.env.AIDE_MODEL_PREFIX_CACHE;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    AIDE_HOME: home,
    AIDE_MODEL_DISCOVERY: "off",
    ...(prefixCache !== undefined ? { AIDE_MODEL_PREFIX_CACHE: prefixCache } : {}),
  };
  const stack = await startStack({ workspace: join(home, "eval"), env });
  const out = join(home, "eval", "real");
  const loadAtStart = Math.round(loadavg()[0] * 100) / 100;
  const started = performance.now();
  const warmUpMs: Record<string, number> = {};

  /** The report, results and events of the attempts that finished, into bench/results; `stopped` when the run was cut short. */
  const publish = async (records: AttemptRecord[], stopped: boolean) => {
    await writeReport(out, records);
    rmSync(outFolder, { recursive: true, force: true });
    mkdirSync(outFolder, { recursive: true });
    // Only finished attempts' events: an attempt cut short by the stop has a partial file and no record.
    const finishedEvents = new Set(records.map((record) => record.events));
    for (const name of readdirSync(out)) {
      // results.jsonl is written from the records below (a stopped run's in-flight attempt may still append to the file).
      if (name === "work" || name === "warm-up" || name === "check-caches" || name === "results.jsonl") continue;
      if (name !== "events") {
        cpSync(join(out, name), join(outFolder, name), { recursive: true });
        continue;
      }
      mkdirSync(join(outFolder, "events"), { recursive: true });
      for (const file of readdirSync(join(out, "events"))) if (finishedEvents.has(`events/${file}`)) cpSync(join(out, "events", file), join(outFolder, "events", file));
    }
    writeFileSync(join(outFolder, "results.jsonl"), records.map((record) => JSON.stringify(record)).join("\n") + (records.length > 0 ? "\n" : ""));
    const tokensPerSecond = Object.fromEntries(
      present.map((id) => {
        const own = records.filter((r) => r.model === id);
        const completion = own.reduce((sum, r) => sum + (r.completion_tokens ?? 0), 0);
        const modelMs = own.reduce((sum, r) => sum + (r.model_ms ?? 0), 0);
        return [id, modelMs > 0 ? Math.round((completion / modelMs) * 1000 * 10) / 10 : null];
      }),
    );
    const figures = {
      models: present,
      arms: arms.map((arm) => arm.name),
      arm_settings: Object.fromEntries(arms.map((arm) => [arm.name, arm.settings])),
      repeat,
      parallel,
      max_iterations: maxIterations,
      budget_s: budgetMs / 1000,
      ...(fill.length > 0 ? { filled: fill.map((dir) => relative(join(benchRoot, "results"), dir)) } : {}),
      ...(stopped ? { stopped: true } : {}),
      measured_at: new Date().toISOString(),
      attempts: records.length,
      wall_s: Math.round((performance.now() - started) / 1000),
      load_average_1m_at_start: loadAtStart,
      completion_tokens_per_model_second: tokensPerSecond,
      warm_up_ms: warmUpMs,
      variants: scoreVariants(records),
    };
    writeFileSync(join(outFolder, "figures.json"), JSON.stringify(figures, null, 2) + "\n");
    process.stderr.write(`wrote ${outFolder}${stopped ? ` (stopped: ${records.length} finished attempts)` : ""}\n`);
  };

  // A bench stopped by hand stops its stack too (it runs in its own process group), and keeps the
  // attempts that finished (results.jsonl grows one line an attempt): BENCH_FILL with this folder
  // then runs only the rest.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stack.signal();
      const finished = existsSync(join(out, "results.jsonl")) ? readResults([out]) : [];
      const done = finished.length > 0 ? publish(finished, true) : Promise.resolve();
      done.catch((error: unknown) => process.stderr.write(`keeping the finished attempts failed: ${String(error)}\n`)).finally(() => process.exit(130));
    });
  }
  let records: AttemptRecord[];
  try {
    records = await runEval({
      tasksDir: join(repoRoot, "eval", "tasks"),
      select: list(process.env.BENCH_TASKS, "", ","),
      models: present,
      arms,
      connection: stack.connection,
      repeat,
      parallel,
      budgetMs,
      maxIterations,
      out,
      run: "real",
      hidden: [home],
      nodePath: join(repoRoot, "node_modules"),
      ...(plan !== undefined ? { repeatsFor: plan.repeatsFor } : {}),
      // Each model is loaded before the first attempt: no attempt is charged the load.
      warmUp: true,
      onWarmUp: (model, ms, problem) => {
        warmUpMs[model] = ms;
        process.stderr.write(`warm-up ${model} ${Math.round(ms / 1000)} s${problem !== undefined ? ` (${problem})` : ""}\n`);
      },
      onAttempt: (r) => process.stderr.write(`${r.check_passed ? "pass" : "fail"} ${r.task} ${r.model} ${r.arm ?? "-"} ${r.outcome}${r.code ? ` ${r.code}` : ""} ${Math.round(r.wall_ms / 1000)} s\n`),
    });
  } finally {
    await stack.stop();
    mkdirSync(profileCache, { recursive: true });
    cpSync(profiles, profileCache, { recursive: true });
  }
  await publish(records, false);
  rmSync(home, { recursive: true, force: true });
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
