import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { createLogger } from "@aide/runtime";
import { commandGitEnvironment, createSandbox } from "@aide/tools";
import { percentile, writeBenchResult } from "./lib/results.js";

/**
 * The cost of the command sandbox: one `true` through the tools service's Sandbox (sh wrapper,
 * per-command cgroups, bubblewrap with its namespaces, prlimit) against the same `true` spawned
 * plainly with execa, same run, alternating, after a warm-up.
 */
const runs = Number(process.env.BENCH_RUNS ?? 60);
const workspace = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-sandbox-")));
const logger = createLogger("bench-sandbox", { level: "warn" });
const sandbox = await createSandbox({ unsafeNoSandbox: false, logger });
if (sandbox.mode !== "bwrap") throw new Error(`bubblewrap is not usable here (${sandbox.unavailableReason})`);

async function sandboxed(): Promise<number> {
  const started = performance.now();
  const result = await sandbox.run({ argv: ["true"], workspace, cwd: workspace, network: false, timeoutMs: 10_000 });
  if (result.exitCode !== 0) throw new Error(`sandboxed true exited ${result.exitCode}: ${result.stdout}`);
  return performance.now() - started;
}

/** bubblewrap alone with the same arguments (no sh wrapper, no cgroups): where the time goes. */
async function bwrapOnly(): Promise<number> {
  const wrapped = sandbox.wrap({ argv: ["true"], workspace, cwd: workspace, network: false, timeoutMs: 10_000 });
  const started = performance.now();
  const result = await execa(wrapped.file, wrapped.args, { reject: false, stdin: "ignore", env: wrapped.env, extendEnv: false });
  if (result.exitCode !== 0) throw new Error(`bwrap true failed: ${result.stderr}`);
  return performance.now() - started;
}

/**
 * A repository workspace (a filter driver in its config, a nested repository, 300 folders of
 * files): what run_command does before and around its command (the git-directory discovery and
 * the configuration neutralization) plus the sandboxed `true`, against the plain `true`.
 */
const repository = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-sandbox-repo-")));
await execa("git", ["init", "-q", repository]);
await execa("git", ["-C", repository, "config", "filter.bench.clean", "cat"]);
await execa("git", ["init", "-q", join(repository, "vendor", "nested")]);
for (let i = 0; i < 300; i += 1) {
  const folder = join(repository, "src", `m${i % 30}`, `d${i}`);
  mkdirSync(folder, { recursive: true });
  for (let j = 0; j < 5; j += 1) writeFileSync(join(folder, `f${j}.ts`), `export const v${j} = ${i};\n`);
}
const commandContext = { workspace: { root: repository }, sandbox, signal: new AbortController().signal, session: "bench" };

async function commandStart(): Promise<number> {
  const started = performance.now();
  const git = await commandGitEnvironment(commandContext, repository);
  if (!git.ok || git.drivers < 1) throw new Error(`neutralization failed: ${JSON.stringify(git)}`);
  const result = await sandbox.run({ argv: ["true"], workspace: repository, cwd: repository, network: false, timeoutMs: 10_000, env: git.env });
  if (result.exitCode !== 0) throw new Error(`sandboxed true in the repository exited ${result.exitCode}: ${result.stdout}`);
  return performance.now() - started;
}

async function plain(): Promise<number> {
  const started = performance.now();
  const result = await execa("true", [], { reject: false, stdin: "ignore" });
  if (result.exitCode !== 0) throw new Error("plain true failed");
  return performance.now() - started;
}

for (let i = 0; i < 5; i += 1) {
  await sandboxed();
  await plain();
  await commandStart();
}
const sandboxedTimes: number[] = [];
const plainTimes: number[] = [];
const bwrapTimes: number[] = [];
const commandTimes: number[] = [];
for (let i = 0; i < runs; i += 1) {
  sandboxedTimes.push(await sandboxed());
  plainTimes.push(await plain());
  bwrapTimes.push(await bwrapOnly());
  commandTimes.push(await commandStart());
}
await sandbox.close();
rmSync(workspace, { recursive: true, force: true });
rmSync(repository, { recursive: true, force: true });
const round = (value: number) => Math.round(value * 100) / 100;
const sandboxedMs = round(percentile(sandboxedTimes, 50));
const plainMs = round(percentile(plainTimes, 50));
const figures = {
  sandboxed_ms: sandboxedMs,
  plain_ms: plainMs,
  added_ms: round(sandboxedMs - plainMs),
  bwrap_only_ms: round(percentile(bwrapTimes, 50)),
  command_start_ms: round(percentile(commandTimes, 50)),
  command_start_added_ms: round(percentile(commandTimes, 50) - plainMs),
  command_start_p95_ms: round(percentile(commandTimes, 95)),
  command_start_case: "run_command's path in a repository workspace (1500 files, a nested repository, a filter driver): neutralization + discovery + sandboxed true",
  sandboxed_min_ms: round(Math.min(...sandboxedTimes)),
  plain_min_ms: round(Math.min(...plainTimes)),
  added_min_ms: round(Math.min(...sandboxedTimes) - Math.min(...plainTimes)),
  sandboxed_p95_ms: round(percentile(sandboxedTimes, 95)),
  plain_p95_ms: round(percentile(plainTimes, 95)),
  runs,
  statistic: "median of alternating runs after 5 warm-up pairs",
  target_added_ms: 20,
  sandbox_mode: sandbox.mode,
  load_average_1m: Math.round(loadavg()[0] * 100) / 100,
};
const path = writeBenchResult("sandbox", figures);
process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwritten to ${path}\n`);
