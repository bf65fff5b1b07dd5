import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { createLogger } from "@aide/runtime";
import { commandGitEnvironment, createSandbox, type Sandbox } from "@aide/tools";
import { percentile, writeBenchResult } from "./lib/results.js";

/**
 * The cost of the command sandbox: one `true` through the tools service's Sandbox (per-command
 * cgroups and limits, bubblewrap with its namespaces and mounts; the jail prepared ahead,
 * prepared-jails.ts) against the same `true` spawned plainly with execa, and against a Sandbox
 * that starts bubblewrap for every command (`preparedJails: 0`), same run, alternating, after a
 * warm-up.
 */
const runs = Number(process.env.BENCH_RUNS ?? 60);
const gapMs = Number(process.env.BENCH_GAP_MS ?? 0);
const loadAtStart = loadavg();
const workspace = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-sandbox-")));
// Debug lines counted, not shown: how many commands ran in a prepared jail.
let jailsTaken = 0;
const logger = createLogger("bench-sandbox", {
  level: "debug",
  destination: {
    write(line: string) {
      if (line.includes('"prepared jail taken"')) jailsTaken += 1;
      else if (/"level":(40|50|60)/.test(line)) process.stderr.write(line);
    },
  },
});
const sandbox = await createSandbox({ unsafeNoSandbox: false, logger });
const freshSandbox = await createSandbox({ unsafeNoSandbox: false, logger: createLogger("bench-sandbox-fresh", { level: "warn" }), preparedJails: 0 });
const freshDirectSandbox = await createSandbox({ unsafeNoSandbox: false, logger: createLogger("bench-sandbox-fresh-direct", { level: "warn" }), preparedJails: 0, spawnHelper: false });
// The same as `sandbox` with its shells and jails forked by the service itself (AIDE_TOOLS_SPAWN_HELPER=off).
let directJailsTaken = 0;
const directSandbox = await createSandbox({
  unsafeNoSandbox: false,
  spawnHelper: false,
  logger: createLogger("bench-sandbox-direct", {
    level: "debug",
    destination: { write: (line: string) => void (line.includes('"prepared jail taken"') ? (directJailsTaken += 1) : /"level":(40|50|60)/.test(line) && process.stderr.write(line)) },
  }),
});
if (sandbox.mode !== "bwrap") throw new Error(`bubblewrap is not usable here (${sandbox.unavailableReason})`);

async function sandboxed(box: Sandbox = sandbox): Promise<number> {
  const started = performance.now();
  const result = await box.run({ argv: ["true"], workspace, cwd: workspace, network: false, timeoutMs: 10_000 });
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
const signal = new AbortController().signal;

async function commandStart(box: Sandbox = sandbox): Promise<number> {
  const started = performance.now();
  const git = await commandGitEnvironment({ workspace: { root: repository }, sandbox: box, signal, session: "bench" }, repository);
  if (!git.ok || git.drivers < 1) throw new Error(`neutralization failed: ${JSON.stringify(git)}`);
  const result = await box.run({ argv: ["true"], workspace: repository, cwd: repository, network: false, timeoutMs: 10_000, env: git.env });
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
  await sandboxed(directSandbox);
  await sandboxed(freshDirectSandbox);
  await sandboxed();
  await sandboxed(freshSandbox);
  await plain();
  await commandStart();
  await commandStart(freshSandbox);
}
const warmUpTaken = jailsTaken;
const directWarmUpTaken = directJailsTaken;
const directTimes: number[] = [];
const freshDirectTimes: number[] = [];
const sandboxedTimes: number[] = [];
const freshTimes: number[] = [];
const plainTimes: number[] = [];
const bwrapTimes: number[] = [];
const commandTimes: number[] = [];
const commandFreshTimes: number[] = [];
/** Times `a` and `b` into their lists; which goes first alternates with `i`. */
async function pair(i: number, a: [number[], () => Promise<number>], b: [number[], () => Promise<number>]): Promise<void> {
  for (const [list, run] of i % 2 === 0 ? [a, b] : [b, a]) {
    // BENCH_GAP_MS: a pause before each timed command, so that what the previous one left to do in
    // the background (its sandbox preparing the next jail or shell) is not timed as this one's.
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    list.push(await run());
  }
}
for (let i = 0; i < runs; i += 1) {
  // The spawn helper's A/B: the same sandboxes with the service forking their shells and jails itself.
  await pair(i, [sandboxedTimes, () => sandboxed()], [directTimes, () => sandboxed(directSandbox)]);
  await pair(i, [freshTimes, () => sandboxed(freshSandbox)], [freshDirectTimes, () => sandboxed(freshDirectSandbox)]);
  plainTimes.push(await plain());
  bwrapTimes.push(await bwrapOnly());
  await pair(i, [commandTimes, () => commandStart()], [commandFreshTimes, () => commandStart(freshSandbox)]);
}
const measuredTaken = jailsTaken - warmUpTaken;
await sandbox.close();
await freshSandbox.close();
await directSandbox.close();
await freshDirectSandbox.close();
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
  bwrap_only_added_ms: round(percentile(bwrapTimes, 50) - plainMs),
  sandboxed_fresh_ms: round(percentile(freshTimes, 50)),
  sandboxed_direct_spawn_ms: round(percentile(directTimes, 50)),
  added_direct_spawn_ms: round(percentile(directTimes, 50) - plainMs),
  direct_spawn_jails_taken: directJailsTaken - directWarmUpTaken,
  sandboxed_fresh_direct_spawn_ms: round(percentile(freshDirectTimes, 50)),
  sandboxed_direct_spawn_p95_ms: round(percentile(directTimes, 95)),
  direct_spawn_case:
    "the same Sandboxes as sandboxed_ms and sandboxed_fresh_ms with AIDE_TOOLS_SPAWN_HELPER=off (spawnHelper: false): their shells and jails forked by this process instead of the spawn helper; each pair alternates which goes first",
  added_fresh_ms: round(percentile(freshTimes, 50) - plainMs),
  sandboxed_fresh_p95_ms: round(percentile(freshTimes, 95)),
  command_start_fresh_ms: round(percentile(commandFreshTimes, 50)),
  prepared_jails_taken: measuredTaken,
  prepared_jails_case: `commands that ran in a jail prepared ahead, of the ${runs} measured on each prepared side (plus a git listing per command start that did not reuse one)`,
  fresh_case: "the same Sandbox with preparedJails: 0 (bubblewrap started for every command, in a shell that joined its cgroups ahead)",
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
  gap_ms: gapMs,
  statistic: "median of alternating runs after 5 warm-up pairs",
  target_added_ms: 8,
  sandbox_mode: sandbox.mode,
  load_average_1m: Math.round(loadavg()[0] * 100) / 100,
  load_average_at_start: loadAtStart.map((value) => Math.round(value * 100) / 100),
  load_average_at_end: loadavg().map((value) => Math.round(value * 100) / 100),
};
const path = writeBenchResult("sandbox", figures);
process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwritten to ${path}\n`);
