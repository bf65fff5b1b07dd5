/**
 * npm run bench:mcp — the latency aide adds to a trivial MCP call (server-everything's `echo`):
 * the official SDK client calling the server directly over stdio, against the same call through
 * aide (`busRequest` as the orchestrator makes it → the MCP service process → the same server in
 * its bubblewrap sandbox → back). Also the SDK calling the server inside the same sandbox, which
 * splits the added time into sandbox and bus+service; `agent.mcp.status` (a trivial handler in
 * the same MCP service process), which splits bus+service into the bus round trip with the service
 * runtime and the call's own work; and a bare JSON-RPC client (no SDK) calling the server
 * directly, the fastest direct configuration, to say how much of the anchor is the SDK's own.
 * The five take turns call by call, and which goes first rotates every call, so load and the
 * order (whose process ran last) hit all alike.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connect } from "nats";
import { z } from "zod";
import { McpConfigSchema, McpCallReplySchema, mcpSubjects, replySchema, type McpStdioServerConfig } from "@aide/contracts";
import { busRequest, serverSandboxArguments, startNatsServer, waitForService } from "@aide/runtime";
import { rawJsonRpcClient } from "./lib/raw-json-rpc.js";
import { turnOrder } from "./lib/turn-order.js";
import { percentile, repoRoot, writeBenchResult } from "./lib/results.js";
import { busWriteSetting } from "./lib/bus-write-setting.js";

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const warmup = 30;
const tls = process.env.BENCH_MCP_TLS === "1";
const logLevel = process.env.BENCH_MCP_LOG_LEVEL ?? "info";
const server = join(repoRoot, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const median = (values: number[]) => percentile(values, 50);
const AnyReplySchema = replySchema(z.unknown());

async function timeOne(call: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await call();
  return Number(process.hrtime.bigint() - started) / 1000;
}

async function echoDirect(client: Client, i: number): Promise<void> {
  const result = await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
  if (result.isError) throw new Error("echo failed");
}

async function sdkClient(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return client;
}

async function main() {
  const root = mkdtempSync(join(tmpdir(), "aide-bench-mcp-"));
  const aideHome = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(aideHome, { mode: 0o700 });
  mkdirSync(workspace);
  const declared = { command: process.execPath, args: [server, "stdio"] };
  writeFileSync(join(aideHome, "mcp.json"), JSON.stringify({ servers: { everything: declared } }));
  // BENCH_MCP_TLS=1: a TLS-only bus with a pinned CA, as `aide up` runs it (default: the plain bus of the tests).
  const nats = await startNatsServer({ runDir: join(root, "run"), tls: tls });
  // BENCH_MCP_PROFILE=DIR: the MCP service writes a V8 CPU profile there (`node --cpu-prof`).
  const profile = process.env.BENCH_MCP_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_MCP_PROFILE}`] : [];
  // Logging as `aide up` runs the service: level info (two lines a call), stderr to a log file.
  const logFile = openSync(join(root, "mcp.log"), "a");
  const service = spawn(process.execPath, [...profile, join(repoRoot, "services", "mcp", "dist", "main.js")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      AIDE_HOME: aideHome,
      AIDE_WORKSPACE_ROOTS: workspace,
      AIDE_NATS_URL: nats.url,
      AIDE_NATS_CREDS: nats.credentialFiles.mcp!,
      AIDE_LOG_LEVEL: logLevel,
      ...busWriteSetting,
      ...(nats.caFile ? { AIDE_NATS_CA: nats.caFile } : {}),
    },
    stdio: ["ignore", logFile, logFile],
  });
  // The supervisor's user pings; the calls go as the orchestrator's, whose permissions they are.
  const as = (user: string) => {
    const creds = nats.credentials[user]!;
    return connect({ servers: nats.url, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix, ...(nats.caFile ? { tls: { caFile: nats.caFile } } : {}) });
  };
  const pinger = await as("supervisor");
  const bus = await as("orchestrator");
  try {
    await waitForService(pinger, "mcp", { timeoutMs: 60_000 });
    const direct = await sdkClient(process.execPath, [server, "stdio"]);
    const config = McpConfigSchema.parse({ servers: { everything: declared } }).servers.everything as McpStdioServerConfig;
    const sandboxArgs = serverSandboxArguments({
      server: config,
      workspaceRoots: [workspace],
      hide: [process.env.HOME ?? "/root", aideHome],
      keepVisible: [repoRoot],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp/home" },
    });
    const sandboxed = await sdkClient("bwrap", sandboxArgs);
    let counter = 0;
    const viaAide = async (i: number) => {
      counter += 1;
      const body = { session: "bench", call_id: `b${counter}`, server: "everything", tool: "echo", arguments: { message: `m${i}` } };
      // As services/orchestrator/src/bus/bus-service-ports.ts sends it (no retry, no heartbeats).
      const result = await busRequest(bus, mcpSubjects.call, body, McpCallReplySchema, { timeoutMs: 60_000 + 10_000, service: "mcp" });
      if (result.is_error) throw new Error(`call through aide failed: ${JSON.stringify(result)}`);
    };
    // The same service process answering a trivial request, sent the same way: the bus round trip
    // plus the service runtime (and busRequest's own framing, as for the call).
    const statusOnly = async () => {
      await busRequest(bus, mcpSubjects.status, {}, AnyReplySchema, { timeoutMs: 10_000, service: "mcp" });
    };
    const raw = await rawJsonRpcClient(process.execPath, [server, "stdio"]);
    const paths = {
      direct: (i: number) => echoDirect(direct, i),
      sandboxed: (i: number) => echoDirect(sandboxed, i),
      aide: viaAide,
      status: statusOnly,
      raw: async (i: number) => {
        const result = (await raw.call("tools/call", { name: "echo", arguments: { message: `m${i}` } })) as { isError?: boolean };
        if (result.isError) throw new Error("echo failed");
      },
    };
    type Path = keyof typeof paths;
    const names = Object.keys(paths) as Path[];
    const empty = () => Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Path, number[]>;
    const all = empty();
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const r = empty();
      for (let i = 0; i < warmup + iterations; i++) {
        // The paths take turns call by call, and which goes first rotates: a load spike on this
        // shared machine, and whichever process ran just before, hit each alike.
        for (const name of turnOrder(names, i)) {
          const took = await timeOne(() => paths[name](i));
          if (i >= warmup) r[name].push(took);
        }
      }
      for (const name of names) all[name].push(...r[name]);
      ratios.push(Math.round((median(r.aide) / median(r.direct)) * 1000) / 1000);
    }
    await direct.close();
    await sandboxed.close();
    raw.close();
    const p50 = { direct: median(all.direct), sandboxed: median(all.sandboxed), aide: median(all.aide), status: median(all.status), raw: median(all.raw) };
    const figures = {
      iterations,
      rounds,
      direct_sdk_p50_us: Math.round(p50.direct),
      direct_sdk_p99_us: Math.round(percentile(all.direct, 99)),
      sdk_in_sandbox_p50_us: Math.round(p50.sandboxed),
      through_aide_p50_us: Math.round(p50.aide),
      through_aide_p99_us: Math.round(percentile(all.aide, 99)),
      added_latency_p50_us: Math.round(p50.aide - p50.direct),
      of_which_sandbox_p50_us: Math.round(p50.sandboxed - p50.direct),
      of_which_bus_and_service_p50_us: Math.round(p50.aide - p50.sandboxed),
      status_through_aide_p50_us: Math.round(p50.status),
      of_which_bus_round_trip_and_runtime_p50_us: Math.round(p50.status),
      of_which_call_work_in_service_p50_us: Math.round(p50.aide - p50.status - p50.sandboxed),
      ratio_p50: Math.round((p50.aide / p50.direct) * 1000) / 1000,
      ratio_p50_by_round: ratios,
      raw_json_rpc_direct_p50_us: Math.round(p50.raw),
      of_which_sdk_client_in_anchor_p50_us: Math.round(p50.direct - p50.raw),
      ratio_vs_raw_json_rpc_p50: Math.round((p50.aide / p50.raw) * 1000) / 1000,
      bus: tls ? "TLS with a pinned CA (as aide up)" : "plain (as the tests)",
      service_log_level: logLevel,
      order: "the five paths take turns call by call; the first of each turn rotates",
      load_average_1m: Math.round(loadavg()[0]! * 100) / 100,
      what: "server-everything echo over stdio: the SDK client directly vs agent.mcp.call through the MCP service to the same server in its bubblewrap sandbox (the approval gate excluded: it waits for a person)",
    };
    const path = writeBenchResult(tls ? "mcp-tls" : "mcp", figures);
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwritten to ${path}\n`);
  } finally {
    await bus.close();
    await pinger.close();
    service.kill("SIGTERM");
    await new Promise((resolve) => service.once("exit", resolve));
    closeSync(logFile);
    await nats.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
