import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { createLogger } from "@aide/runtime";
import { createSandbox, type Sandbox } from "@aide/tools";
import { percentile } from "./lib/results.js";

/**
 * Where a sandboxed command's time goes, step by step (for bench/results/sandbox-notes.md): each
 * step a `true`, every step in turn per round, medians printed (nothing written to results/).
 * `node bench/dist/sandbox-steps.js` (BENCH_RUNS rounds, default 40).
 */
const runs = Number(process.env.BENCH_RUNS ?? 40);
const workspace = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-steps-")));
const logger = createLogger("bench-steps", { level: "warn" });
const prepared = await createSandbox({ unsafeNoSandbox: false, logger });
const fresh = await createSandbox({ unsafeNoSandbox: false, logger, preparedJails: 0 });
const options = { argv: ["true"], workspace, cwd: workspace, network: false, timeoutMs: 10_000 };
const wrapped = prepared.wrap(options);
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
const spawn = (file: string, args: string[]) => execa(file, args, { reject: false, stdin: "ignore", env: wrapped.env, extendEnv: false });
const run = async (box: Sandbox) => {
  const result = await box.run(options);
  if (result.exitCode !== 0) throw new Error(`sandboxed true exited ${result.exitCode}: ${result.stdout}`);
};
const steps: Record<string, () => Promise<unknown>> = {
  "plain `true` (execa)": () => spawn("true", []),
  "`bwrap --ro-bind / / true`": () => spawn("bwrap", ["--ro-bind", "/", "/", "true"]),
  "+ the namespaces (pid, ipc, uts, cgroup, net), new session, caps dropped": () =>
    spawn("bwrap", [
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--unshare-net",
      "--ro-bind",
      "/",
      "/",
      "true",
    ]),
  "bwrap with the sandbox's full arguments (dev, proc, tmpfs, hides, workspace)": () => spawn(wrapped.file, wrapped.args),
  "sandbox.run, bubblewrap started per command (preparedJails: 0)": () => run(fresh),
  "sandbox.run, jail prepared ahead": () => run(prepared),
  "Node side only: the git-directory re-check (sandbox.gitDirectories)": () => prepared.gitDirectories(workspace),
  "Node side only: bubblewrap arguments and environment (sandbox.wrap)": async () => prepared.wrap(options),
};
const times = new Map(Object.keys(steps).map((name) => [name, [] as number[]]));
for (let round = 0; round < runs + 3; round += 1) {
  for (const [name, step] of Object.entries(steps)) {
    const ms = await timed(step);
    if (round >= 3) times.get(name)?.push(ms);
  }
}
await prepared.close();
await fresh.close();
rmSync(workspace, { recursive: true, force: true });
const plain = percentile(times.get("plain `true` (execa)") ?? [], 50);
process.stdout.write(
  `load ${loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")}, ${runs} rounds\n| step | p50 | vs plain |\n| --- | --- | --- |\n`,
);
for (const [name, values] of times) {
  const p50 = percentile(values, 50);
  process.stdout.write(`| ${name} | ${p50.toFixed(2)} ms | ${name.startsWith("Node side") ? "" : `${(p50 / plain).toFixed(2)}`} |\n`);
}
