/**
 * npm run bench:jail — the jail under a swapping race. A racer process swaps `<workspace>/swap` between a
 * directory and a symlink to a directory outside the workspace (inside another workspace root, so
 * the service can see it even in its sandbox) while 10,000 read_file and 10,000 write_file calls
 * run through the real tools service over the bus: once as with `--unsandboxed-services`, once in
 * the bubblewrap profile `aide up` gives the service. Counted: attempts, leaks (outputs carrying
 * bytes from outside, files created outside). In the same run, in process and without a racer:
 * the cost per operation of the descriptor walk against the old check-then-open (kept in
 * lib/check-then-open.ts for this only), as a ratio; and the old approach under the same racer.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { decodeJson, encodeJson, startNatsServer, waitForService, type RunningNatsServer } from "@aide/runtime";
import { installRoot, sandboxProfiles } from "@aide/cli/supervisor";
import { checkSandboxSupport, serviceSandboxArguments } from "@aide/runtime";
import { openWorkspace } from "@aide/tools";
import { percentile, repoRoot, writeBenchResult } from "./lib/results.js";
import { listTree, prepareSwap, secretText, startSwapRacer } from "./lib/swap-racer.js";
import { readChecked, writeChecked } from "./lib/check-then-open.js";

const operations = Number(process.env.BENCH_OPERATIONS ?? 10_000);
const costOperations = Number(process.env.BENCH_COST_OPERATIONS ?? 10_000);
const costWarmup = 500;
/** Six workers, each a read and a write at once: 12 requests in flight, under the service's 16. */
const workers = 6;

interface RaceFigures {
  reads: number;
  writes: number;
  leaked_reads: number;
  leaked_bytes: number;
  files_created_outside: number;
  reads_inside: number;
  writes_done: number;
  refused: number;
  error_replies: number;
  racer_swaps: number;
  seconds: number;
}

function leakedBytes(text: string): number {
  return (text.split(secretText).length - 1) * secretText.length;
}

function scratchWithSwap(): { scratch: string; workspace: string; outside: string } {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-jail-")));
  const workspace = join(scratch, "ws");
  const outside = join(scratch, "other-root");
  mkdirSync(workspace);
  prepareSwap(workspace, outside);
  return { scratch, workspace, outside };
}

function startService(server: RunningNatsServer, scratch: string, sandboxed: boolean): ChildProcess {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    AIDE_NATS_URL: server.url,
    AIDE_NATS_CREDS: server.credentialFiles.tools,
    AIDE_LOG_LEVEL: "warn",
    AIDE_WORKSPACE_ROOTS: scratch,
  };
  const argv = [process.execPath, join(repoRoot, "services", "tools", "dist", "main.js")];
  if (!sandboxed) return spawn(argv[0], argv.slice(1), { env, stdio: ["ignore", "ignore", "inherit"] });
  const args = serviceSandboxArguments({
    profile: sandboxProfiles.tools,
    env,
    command: argv,
    home: env.HOME,
    aideHome: join(env.HOME, ".aide"),
    installRoot,
    credentialsFile: server.credentialFiles.tools,
    workspaceRoots: [scratch],
    readOnly: [],
  });
  return spawn("bwrap", args, { env: { PATH: env.PATH }, stdio: ["ignore", "ignore", "inherit"] });
}

async function raceOverBus(server: RunningNatsServer, client: NatsConnection, sandboxed: boolean): Promise<RaceFigures> {
  const { scratch, workspace, outside } = scratchWithSwap();
  const service = startService(server, scratch, sandboxed);
  try {
    await waitForService(client, "tools", { timeoutMs: 20_000 });
    const before = listTree(outside);
    let counter = 0;
    const exec = async (name: string, args: Record<string, unknown>) => {
      counter += 1;
      const reply = await client.request("agent.tools.exec", encodeJson({ session: "bench", workspace, call: { id: `c${counter}`, name, arguments: args } }), { timeout: 60_000 });
      return decodeJson(reply.data) as { ok: boolean; result?: { is_error: boolean; output: string } };
    };
    const figures = { reads: 0, writes: 0, leaked_reads: 0, leaked_bytes: 0, reads_inside: 0, writes_done: 0, refused: 0, error_replies: 0 };
    const started = performance.now();
    const racer = await startSwapRacer(workspace);
    let next = 0;
    const worker = async () => {
      while (next < operations) {
        const index = next++;
        const [read, write] = await Promise.all([exec("read_file", { path: "swap/file.txt" }), exec("write_file", { path: `swap/w-${index % 50}.txt`, content: `written ${index}\n` })]);
        figures.reads += 1;
        figures.writes += 1;
        for (const reply of [read, write]) {
          if (!reply.ok || reply.result === undefined) figures.error_replies += 1;
          else if (reply.result.is_error) figures.refused += 1;
          const bytes = leakedBytes(reply.result?.output ?? "");
          if (bytes > 0) {
            figures.leaked_reads += 1;
            figures.leaked_bytes += bytes;
          }
        }
        if (read.ok && read.result?.is_error === false && read.result.output.includes("inside")) figures.reads_inside += 1;
        if (write.ok && write.result?.is_error === false) figures.writes_done += 1;
      }
    };
    let swaps = 0;
    try {
      await Promise.all(Array.from({ length: workers }, worker));
    } finally {
      swaps = await racer.stop();
    }
    const after = listTree(outside);
    return { ...figures, files_created_outside: after.filter((path) => !before.includes(path)).length, racer_swaps: swaps, seconds: Math.round((performance.now() - started) / 100) / 10 };
  } finally {
    service.kill("SIGTERM");
    await new Promise((resolve) => service.once("exit", resolve));
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The same reads and writes in process, new walk and old check-then-open, under the racer. */
async function raceInProcess(kind: "descriptor-walk" | "check-then-open"): Promise<RaceFigures> {
  const { scratch, workspace: root, outside } = scratchWithSwap();
  const workspace = await openWorkspace(root, []);
  const before = listTree(outside);
  const figures = { reads: 0, writes: 0, leaked_reads: 0, leaked_bytes: 0, reads_inside: 0, writes_done: 0, refused: 0, error_replies: 0 };
  const started = performance.now();
  const racer = await startSwapRacer(root);
  let swaps = 0;
  try {
    for (let index = 0; index < operations; index += 1) {
      figures.reads += 1;
      try {
        const data = kind === "check-then-open" ? await readChecked(root, "swap/file.txt") : await workspace.readFile("swap/file.txt");
        const bytes = leakedBytes(data?.toString("utf8") ?? "");
        if (bytes > 0) {
          figures.leaked_reads += 1;
          figures.leaked_bytes += bytes;
        } else if (data !== null) figures.reads_inside += 1;
      } catch {
        figures.refused += 1;
      }
      figures.writes += 1;
      try {
        const data = Buffer.from(`written ${index}\n`);
        if (kind === "check-then-open") await writeChecked(root, `swap/w-${index % 50}.txt`, data);
        else await workspace.writeFile(`swap/w-${index % 50}.txt`, data);
        figures.writes_done += 1;
      } catch {
        figures.refused += 1;
      }
    }
  } finally {
    swaps = await racer.stop();
  }
  const after = listTree(outside);
  rmSync(scratch, { recursive: true, force: true });
  return { ...figures, files_created_outside: after.filter((path) => !before.includes(path)).length, racer_swaps: swaps, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/**
 * Microseconds per operation, no racer, a path four components deep. New and old alternate
 * operation by operation, so the load other processes put on this shared machine hits both alike;
 * the ratio is that of the medians.
 */
async function costPerOperation() {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-jail-cost-")));
  mkdirSync(join(scratch, "ws", "src", "module", "part"), { recursive: true });
  const root = join(scratch, "ws");
  writeFileSync(join(root, "src", "module", "part", "file.ts"), "export const x = 1;\n".repeat(50));
  const workspace = await openWorkspace(root, []);
  const data = Buffer.from("export const y = 2;\n".repeat(50));
  const path = "src/module/part/file.ts";
  const samples = { newRead: [] as number[], oldRead: [] as number[], newWrite: [] as number[], oldWrite: [] as number[] };
  const time = async (into: number[] | null, operation: () => Promise<unknown>) => {
    const started = performance.now();
    await operation();
    into?.push((performance.now() - started) * 1000);
  };
  for (let index = 0; index < costWarmup + costOperations; index += 1) {
    const keep = index >= costWarmup;
    const target = `src/module/part/w${index % 20}.ts`;
    // Alternate which goes first, so neither always runs on a warmer cache.
    const pairs: Array<[number[], () => Promise<unknown>]> = [
      [samples.newRead, () => workspace.readFile(path)],
      [samples.oldRead, () => readChecked(root, path)],
      [samples.newWrite, () => workspace.writeFile(target, data)],
      [samples.oldWrite, () => writeChecked(root, target, data)],
    ];
    const order = index % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2];
    for (const which of order) await time(keep ? pairs[which][0] : null, pairs[which][1]);
  }
  rmSync(scratch, { recursive: true, force: true });
  const median = (values: number[]) => percentile(values, 50);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    read_us: round(median(samples.newRead)),
    read_us_check_then_open: round(median(samples.oldRead)),
    read_ratio: Math.round((median(samples.newRead) / median(samples.oldRead)) * 100) / 100,
    read_p99_us: round(percentile(samples.newRead, 99)),
    read_p99_us_check_then_open: round(percentile(samples.oldRead, 99)),
    write_us: round(median(samples.newWrite)),
    write_us_check_then_open: round(median(samples.oldWrite)),
    write_ratio: Math.round((median(samples.newWrite) / median(samples.oldWrite)) * 100) / 100,
    write_p99_us: round(percentile(samples.newWrite, 99)),
    write_p99_us_check_then_open: round(percentile(samples.oldWrite, 99)),
    operations: costOperations,
    path_depth: 4,
  };
}

const runDir = mkdtempSync(join(tmpdir(), "aide-bench-jail-bus-"));
const server = await startNatsServer({ runDir, extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } } });
const creds = server.credentials.tester;
const client = await connect({ servers: server.url, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix });
try {
  const cost = await costPerOperation();
  process.stderr.write(`cost: ${JSON.stringify(cost)}\n`);
  const unsandboxed = await raceOverBus(server, client, false);
  process.stderr.write(`unsandboxed: ${JSON.stringify(unsandboxed)}\n`);
  const support = checkSandboxSupport();
  const sandboxed = support.available ? await raceOverBus(server, client, true) : null;
  process.stderr.write(`sandboxed: ${JSON.stringify(sandboxed)}\n`);
  const inProcess = await raceInProcess("descriptor-walk");
  const oldInProcess = await raceInProcess("check-then-open");
  const figures = {
    operations,
    over_the_bus_unsandboxed: unsandboxed,
    over_the_bus_sandboxed: sandboxed ?? `not run: ${support.detail}`,
    in_process_descriptor_walk: inProcess,
    in_process_check_then_open: oldInProcess,
    cost_per_operation: cost,
    statistic: "leaks: outputs carrying the outside secret and files that appeared outside; cost: medians of per-operation times, new and old alternating operation by operation; ratio = new/old",
    load_average_1m: Math.round(loadavg()[0] * 100) / 100,
  };
  const path = writeBenchResult("jail", figures);
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwritten to ${path}\n`);
  const leaks = [unsandboxed, sandboxed, inProcess].filter((f) => f !== null).some((f) => f!.leaked_reads > 0 || f!.files_created_outside > 0);
  if (leaks) process.exitCode = 1;
} finally {
  await client.close();
  await server.stop();
  rmSync(runDir, { recursive: true, force: true });
}
