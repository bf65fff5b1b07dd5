/**
 * npm run bench:bus — request/reply round trips between two real processes over the loopback
 * bus (a requester process and the echo service process), a small payload and a 64 KB one;
 * in the same run: the same validated call as an in-process function (the bus overhead), and both
 * processes inside the bubblewrap profile the supervisor gives services.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { busPermissions, decodeJson, encodeJson, startNatsServer, type RunningNatsServer } from "@aide/runtime";
import { installRoot, sandboxProfiles } from "@aide/cli/supervisor";
import { checkSandboxSupport, serviceSandboxArguments } from "@aide/runtime";
import { echoEndpoint, EchoRequestSchema } from "./bus-echo-service.js";
import { percentile, writeBenchResult } from "./lib/results.js";
import { busWriteSetting } from "./lib/bus-write-setting.js";

const iterations = Number(process.env.BENCH_ITERATIONS ?? 2000);
/** Plain and sandboxed pairs alternate, round by round, so load changes on this shared machine hit both alike. */
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (values: number[]) => percentile(values, 50);
const warmup = 500;

function command(script: string, user: string, server: RunningNatsServer, runDir: string, sandboxed: boolean): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    AIDE_NATS_URL: server.url,
    AIDE_NATS_CREDS: server.credentialFiles[user],
    AIDE_LOG_LEVEL: "warn",
    BENCH_ITERATIONS: String(iterations),
    // The responder runs the service runtime.
    ...busWriteSetting,
    ...(server.caFile ? { AIDE_NATS_CA: server.caFile } : {}),
  };
  // BENCH_BUS_PROFILE=DIR: each process writes a V8 CPU profile there (`node --cpu-prof`).
  const profile = process.env.BENCH_BUS_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_BUS_PROFILE}`] : [];
  const argv = [process.execPath, ...profile, join(import.meta.dirname, script)];
  if (!sandboxed) return { file: argv[0], args: argv.slice(1), env };
  const args = serviceSandboxArguments({
    profile: sandboxProfiles.orchestrator,
    env,
    command: argv,
    home: process.env.HOME ?? "/root",
    aideHome: runDir,
    installRoot,
    credentialsFile: server.credentialFiles[user],
    workspaceRoots: [],
    readOnly: [],
  });
  return { file: "bwrap", args, env: { PATH: env.PATH } };
}

async function busPair(server: RunningNatsServer, runDir: string, sandboxed: boolean, options: { responder?: string; env?: Record<string, string> } = {}): Promise<Record<string, number[]>> {
  const responder = command("bus-echo-service.js", options.responder ?? "bench_responder", server, runDir, sandboxed);
  const echo = spawn(responder.file, responder.args, { env: responder.env, stdio: ["ignore", "ignore", "inherit"] });
  try {
    const requester = command("bus-requester.js", "bench_requester", server, runDir, sandboxed);
    const child = spawn(requester.file, requester.args, { env: { ...requester.env, ...options.env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    if (code !== 0) throw new Error(`requester exited with ${code}`);
    return JSON.parse(out) as Record<string, number[]>;
  } finally {
    echo.kill("SIGTERM");
    await new Promise((resolve) => echo.once("exit", resolve));
  }
}

async function inProcess(payload: string): Promise<number[]> {
  const samples: number[] = [];
  const controller = new AbortController();
  for (let i = 0; i < warmup + iterations; i++) {
    const started = process.hrtime.bigint();
    // The same work minus the bus: encode, decode, validate, handle, encode the reply, decode it.
    const request = EchoRequestSchema.parse(decodeJson(encodeJson({ id: i, payload })));
    const result = await echoEndpoint.handle(request, { subject: "", message: undefined as never, logger: undefined as never, signal: controller.signal });
    decodeJson(encodeJson({ ok: true, result }));
    if (i >= warmup) samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return samples;
}

/**
 * Two response permissions for the sustained case: the services' own (one reply per request;
 * heartbeats go to `agent.hb.<service>.>`), and what the model, tools and checkpoints services had
 * before, when heartbeats went to the reply subject (`max: 5000, expires: 1h`). nats-server keeps
 * a reply subject until its responses are used up or it expires, and once a connection holds more
 * than 4,096 of them it looks through all of them on every new request.
 */
const serviceResponses = busPermissions().tools.allow_responses ?? true;
const replyHeartbeatResponses = { max: 5000, expires: "1h" };
const benchUsers = {
  bench_responder: { publish: { allow: ["agent.hb.bench.>"] }, subscribe: { allow: ["agent.bench.>", "$SRV.>"] }, allow_responses: serviceResponses },
  bench_responder_reply_heartbeats: { publish: { deny: [">"] }, subscribe: { allow: ["agent.bench.>", "$SRV.>"] }, allow_responses: replyHeartbeatResponses },
  bench_requester: { publish: { allow: ["agent.bench.>", "$SRV.>"] }, subscribe: { allow: ["_INBOX_bench_requester.>", "agent.hb.*.*.*"] } },
};

async function main() {
  const runDir = mkdtempSync(join(tmpdir(), "aide-bench-bus-"));
  const server = await startNatsServer({
    runDir,
    extraUsers: benchUsers,
  });
  try {
    const round = (value: number) => Math.round(value * 10) / 10;
    const support = checkSandboxSupport();
    const plainRounds: Array<Record<string, number[]>> = [];
    const sandboxedRounds: Array<Record<string, number[]>> = [];
    for (let index = 0; index < rounds; index++) {
      plainRounds.push(await busPair(server, runDir, false));
      if (support.available) sandboxedRounds.push(await busPair(server, runDir, true));
    }
    // The same pair over a TLS-only server with a pinned CA (what `aide up` runs), alternating with the plain rounds.
    const tlsDir = join(runDir, "tls");
    const tlsServer = await startNatsServer({ runDir: tlsDir, tls: true, extraUsers: benchUsers });
    const tlsRounds: Array<Record<string, number[]>> = [];
    try {
      for (let index = 0; index < rounds; index++) {
        tlsRounds.push(await busPair(tlsServer, tlsDir, false));
        plainRounds.push(await busPair(server, runDir, false));
      }
    } finally {
      await tlsServer.stop();
    }
    // Sustained: 12,000 raw requests to one fresh responder connection, once with each response
    // permission, taking turns; the p50 of the first and of the last 3,000.
    const sustainedCount = Number(process.env.BENCH_SUSTAINED_REQUESTS ?? 12_000);
    const sustained: Record<string, { first: number[]; last: number[] }> = { services: { first: [], last: [] }, reply_heartbeats: { first: [], last: [] } };
    for (let index = 0; index < Math.max(1, Math.min(rounds, 2)); index++) {
      for (const [name, responder] of (index % 2 === 0
        ? [
            ["services", "bench_responder"],
            ["reply_heartbeats", "bench_responder_reply_heartbeats"],
          ]
        : [
            ["reply_heartbeats", "bench_responder_reply_heartbeats"],
            ["services", "bench_responder"],
          ]) as Array<[string, string]>) {
        const samples = (await busPair(server, runDir, false, { responder, env: { BENCH_SUSTAINED: String(sustainedCount) } })).sustained;
        const quarter = Math.floor(samples.length / 4);
        sustained[name].first.push(...samples.slice(100, quarter + 100));
        sustained[name].last.push(...samples.slice(samples.length - quarter));
      }
    }
    const merge = (all: Array<Record<string, number[]>>, key: string) => all.flatMap((samples) => samples[key]);
    const plain = { small: merge(plainRounds, "small"), "64k": merge(plainRounds, "64k") };
    const sandboxed = support.available ? { small: merge(sandboxedRounds, "small"), "64k": merge(sandboxedRounds, "64k") } : undefined;
    // Per-round ratio of the p50s, then their median: robust to load that shifts between rounds.
    const roundRatios = sandboxedRounds.map((samples, index) => percentile(samples.small, 50) / percentile(plainRounds[index].small, 50));
    const localSmall = await inProcess("x".repeat(64));
    const localLarge = await inProcess("y".repeat(64 * 1024));
    const figures = {
      iterations: iterations * rounds,
      rounds,
      p50_us: round(percentile(plain.small, 50)),
      p99_us: round(percentile(plain.small, 99)),
      p50_us_64k: round(percentile(plain["64k"], 50)),
      p99_us_64k: round(percentile(plain["64k"], 99)),
      in_process_p50_us: round(percentile(localSmall, 50)),
      in_process_p99_us: round(percentile(localSmall, 99)),
      in_process_p50_us_64k: round(percentile(localLarge, 50)),
      in_process_p99_us_64k: round(percentile(localLarge, 99)),
      tls_p50_us: round(percentile(merge(tlsRounds, "small"), 50)),
      tls_p99_us: round(percentile(merge(tlsRounds, "small"), 99)),
      tls_p50_us_64k: round(percentile(merge(tlsRounds, "64k"), 50)),
      busrequest_p50_us: round(percentile(merge(plainRounds, "small_busrequest"), 50)),
      busrequest_p99_us: round(percentile(merge(plainRounds, "small_busrequest"), 99)),
      busrequest_tls_p50_us: round(percentile(merge(tlsRounds, "small_busrequest"), 50)),
      // The bus alone: a raw request to a bare nats.js subscription in the echo process (no runtime).
      bare_nats_p50_us: round(percentile(merge(plainRounds, "small_bare"), 50)),
      bare_nats_p99_us: round(percentile(merge(plainRounds, "small_bare"), 99)),
      bare_nats_tls_p50_us: round(percentile(merge(tlsRounds, "small_bare"), 50)),
      busrequest_over_bare_p50: Number((percentile(merge(plainRounds, "small_busrequest"), 50) / percentile(merge(plainRounds, "small_bare"), 50)).toFixed(3)),
      bus_overhead_p50_us: round(percentile(plain.small, 50) - percentile(localSmall, 50)),
      p50_us_sandboxed: sandboxed ? round(percentile(sandboxed.small, 50)) : null,
      p99_us_sandboxed: sandboxed ? round(percentile(sandboxed.small, 99)) : null,
      p50_us_64k_sandboxed: sandboxed ? round(percentile(sandboxed["64k"], 50)) : null,
      sandboxed_ratio_p50: sandboxed ? Number((percentile(sandboxed.small, 50) / percentile(plain.small, 50)).toFixed(3)) : null,
      sandboxed_ratio_p50_median_of_rounds: roundRatios.length > 0 ? Number(median(roundRatios).toFixed(3)) : null,
      sandboxed_ratio_p50_by_round: roundRatios.map((ratio) => Number(ratio.toFixed(3))),
      sustained_requests: sustainedCount,
      sustained_response_permission: { services: serviceResponses, reply_heartbeats: replyHeartbeatResponses },
      sustained_services_p50_us_first: round(percentile(sustained.services.first, 50)),
      sustained_services_p50_us_last: round(percentile(sustained.services.last, 50)),
      sustained_reply_heartbeats_p50_us_first: round(percentile(sustained.reply_heartbeats.first, 50)),
      sustained_reply_heartbeats_p50_us_last: round(percentile(sustained.reply_heartbeats.last, 50)),
      sustained_last_over_first_services: Number((percentile(sustained.services.last, 50) / percentile(sustained.services.first, 50)).toFixed(3)),
      sustained_last_over_first_reply_heartbeats: Number((percentile(sustained.reply_heartbeats.last, 50) / percentile(sustained.reply_heartbeats.first, 50)).toFixed(3)),
      load_average_1m: Number(loadavg()[0].toFixed(2)),
      sandbox: support.detail,
      targets: "p50 under 300 us for the small payload; sandboxed p50 within 10% of unsandboxed",
    };
    const path = writeBenchResult("bus", figures);
    process.stdout.write(JSON.stringify(figures, null, 2) + `\nwritten to ${path}\n`);
  } finally {
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

await main();
