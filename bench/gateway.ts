/**
 * npm run bench:gateway — the real gateway process (services/gateway/dist/main.js) on a real
 * nats-server: one busy session's events delivered to 50 concurrent WebSocket clients (events/s
 * and the delay from publish to receipt), and authenticated REST status requests/s. In the same
 * run, the anchors: the same events to 50 plain NATS subscribers (what the bus alone costs), and
 * the same status request sent straight on the bus (what the HTTP layer adds).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import WebSocket from "ws";
import { eventStreamName, experiment } from "@aide/contracts";
import { startNatsServer, type RunningNatsServer } from "@aide/runtime";
import { percentile, repoRoot, writeBenchResult } from "./lib/results.js";

const clients = Number(process.env.BENCH_CLIENTS ?? 50);
const paced = { events: Number(process.env.BENCH_EVENTS ?? 1000), perSecond: Number(process.env.BENCH_RATE ?? 200) };
const pacedRounds = Number(process.env.BENCH_ROUNDS ?? 3);
const burstEvents = Number(process.env.BENCH_BURST ?? 2000);
const restSeconds = Number(process.env.BENCH_REST_SECONDS ?? 5);
const restConcurrency = 16;
/** High enough that the load measures the API, not the limiter (the limiter still runs on every request). */
const restRateLimit = 1_000_000;
const session = "bench";
const now = () => performance.timeOrigin + performance.now();

async function startGateway(server: RunningNatsServer, tokenFile: string): Promise<{ child: ChildProcess; port: number }> {
  // BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the gateway.
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(repoRoot, "services", "gateway", "dist", "main.js")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      AIDE_NATS_URL: server.url,
      AIDE_NATS_CREDS: server.credentialFiles.gateway,
      AIDE_GATEWAY_PORT: "0",
      AIDE_GATEWAY_TOKEN_FILE: tokenFile,
      AIDE_LOG_LEVEL: "info",
      AIDE_GATEWAY_RATE_LIMIT: String(restRateLimit),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      const match = /"port":(\d+)/.exec(log);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once("exit", (code) => reject(new Error(`gateway exited with ${code}: ${log}`)));
  });
}

/** Answers `agent.cmd.status` for the bench session (the orchestrator's part in the REST path). */
function statusResponder(connection: NatsConnection, lastSeq: () => number): void {
  const subscription = connection.subscribe("agent.cmd.status");
  void (async () => {
    for await (const message of subscription) {
      const at = new Date().toISOString();
      const snapshot = {
        id: session,
        user: "local",
        workspace: "/tmp/bench",
        mode: "act",
        state: "running",
        task: "bench",
        iterations: 1,
        last_seq: lastSeq(),
        approvals_pending: [],
        created_at: at,
        updated_at: at,
      };
      message.respond(new TextEncoder().encode(JSON.stringify({ ok: true, result: snapshot })));
    }
  })();
}

interface Receiver {
  delays: number[];
  received: number;
  lastSeq: number;
  gaps: number;
}

async function openClients(port: number, token: string): Promise<{ receivers: Receiver[]; sockets: WebSocket[] }> {
  const receivers: Receiver[] = [];
  const sockets: WebSocket[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const receiver: Receiver = { delays: [], received: 0, lastSeq: 0, gaps: 0 };
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/events?session=${session}&since=0`, { headers: { authorization: `Bearer ${token}` } });
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data));
        if (frame.type !== "event") return;
        const event = frame.event;
        if (event.seq !== receiver.lastSeq + 1) receiver.gaps += 1;
        receiver.lastSeq = event.seq;
        receiver.received += 1;
        receiver.delays.push(now() - event.payload.sent_at);
      });
      await new Promise((resolve, reject) => {
        ws.once("message", resolve);
        ws.once("error", reject);
      });
      receivers.push(receiver);
      sockets.push(ws);
    }),
  );
  return { receivers, sockets };
}

async function publishEvents(connection: NatsConnection, fromSeq: number, count: number, perSecond: number | undefined): Promise<number> {
  const js = connection.jetstream();
  const started = now();
  for (let index = 0; index < count; index += 1) {
    const seq = fromSeq + index;
    if (perSecond) {
      const due = started + (index * 1000) / perSecond;
      const wait = due - now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const event = {
      session,
      run: "r1",
      seq,
      ts: new Date().toISOString(),
      user: "local",
      depth: 0,
      ...experiment,
      type: "model.delta",
      payload: { request_id: "m", text: "token ".repeat(8), sent_at: now() },
    };
    // Each publish waits for its stream ack: the orchestrator publishes the same way.
    await js.publish(`agent.evt.${session}.model.delta`, new TextEncoder().encode(JSON.stringify(event)), { timeout: 30_000 });
  }
  return now() - started;
}

async function waitFor(receivers: Receiver[], lastSeq: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (receivers.some((r) => r.lastSeq < lastSeq) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return now();
}

/** The anchor: the same paced events to plain NATS subscribers. */
async function busAnchor(server: RunningNatsServer, publisher: NatsConnection, fromSeq: number): Promise<number[]> {
  const creds = server.credentials.bench;
  const connection = await connect({ servers: server.url, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix });
  const delays: number[] = [];
  const subscriptions = Array.from({ length: clients }, () =>
    connection.subscribe(`agent.evt.${session}.>`, { callback: (_error, message) => delays.push(now() - JSON.parse(new TextDecoder().decode(message.data)).payload.sent_at) }),
  );
  await connection.flush();
  await publishEvents(publisher, fromSeq, paced.events, paced.perSecond);
  const deadline = Date.now() + 10_000;
  while (delays.length < paced.events * clients && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  for (const subscription of subscriptions) subscription.unsubscribe();
  await connection.close();
  return delays;
}

async function restLoad(url: string, headers: Record<string, string>): Promise<{ perSecond: number; p50: number; p99: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + restSeconds * 1000;
  const started = now();
  await Promise.all(
    Array.from({ length: restConcurrency }, async () => {
      while (Date.now() < end) {
        const at = now();
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) errors += 1;
        latencies.push(now() - at);
      }
    }),
  );
  const seconds = (now() - started) / 1000;
  return { perSecond: Math.round(latencies.length / seconds), p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), errors };
}

async function busStatusLoad(connection: NatsConnection): Promise<{ perSecond: number; p99: number }> {
  const latencies: number[] = [];
  const end = Date.now() + restSeconds * 1000;
  const started = now();
  await Promise.all(
    Array.from({ length: restConcurrency }, async () => {
      while (Date.now() < end) {
        const at = now();
        await connection.request("agent.cmd.status", new TextEncoder().encode(JSON.stringify({ session })), { timeout: 5000 });
        latencies.push(now() - at);
      }
    }),
  );
  return { perSecond: Math.round(latencies.length / ((now() - started) / 1000)), p99: round(percentile(latencies, 99)) };
}

const round = (value: number) => Math.round(value * 100) / 100;

/** CPU time (user + system) a process has used, in ms, from /proc (load-independent, unlike latency). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
const summary = (delays: number[]) => ({ p50_ms: round(percentile(delays, 50)), p99_ms: round(percentile(delays, 99)), max_ms: round(percentile(delays, 100)) });

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0];
  const runDir = mkdtempSync(join(tmpdir(), "aide-bench-gw-"));
  const server = await startNatsServer({ runDir, extraUsers: { bench: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } } });
  let gateway: ChildProcess | undefined;
  try {
    const creds = server.credentials.bench;
    const bench = await connect({ servers: server.url, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix });
    const manager = await bench.jetstreamManager();
    await manager.streams.add({ name: eventStreamName, subjects: ["agent.evt.>"] });
    let seq = 0;
    statusResponder(bench, () => seq);
    const token = randomBytes(32).toString("base64url");
    const tokenFile = join(runDir, "gateway.token");
    writeFileSync(tokenFile, token + "\n", { mode: 0o600 });
    const started = await startGateway(server, tokenFile);
    gateway = started.child;
    const child = gateway;
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        child.kill("SIGKILL");
        void server.stop().finally(() => process.exit(130));
      });
    }
    const port = started.port;
    // One event so every client's replay has something, then the clients.
    await publishEvents(bench, ++seq, 1, undefined);
    const { receivers, sockets } = await openClients(port, token);
    await waitFor(receivers, 1, 10_000);
    for (const r of receivers) r.delays.length = 0;

    process.stderr.write(`${clients} clients connected; paced run\n`);
    // Paced: a busy session (the model streaming) at a steady rate, in rounds: the machine is
    // shared, and one round's tail can be another process's burst.
    const rounds: Array<ReturnType<typeof summary>> = [];
    const cpuBefore = cpuMs(child.pid!);
    const pacedDelays: number[] = [];
    for (let round = 0; round < pacedRounds; round += 1) {
      await publishEvents(bench, seq + 1, paced.events, paced.perSecond);
      seq += paced.events;
      await waitFor(receivers, seq, 30_000);
      const delays = receivers.flatMap((r) => r.delays);
      rounds.push(summary(delays));
      pacedDelays.push(...delays);
      for (const r of receivers) r.delays.length = 0;
    }
    const pacedCpuMs = cpuMs(child.pid!) - cpuBefore;
    process.stderr.write(`paced done (slowest client at ${Math.min(...receivers.map((r) => r.lastSeq))} of ${seq}); burst\n`);
    // Burst: as fast as the publisher can go; delivered events/s across all clients.
    const burstStart = now();
    await publishEvents(bench, seq + 1, burstEvents, undefined);
    seq += burstEvents;
    const burstEnd = await waitFor(receivers, seq, 60_000);
    const burstDelays = receivers.flatMap((r) => r.delays);
    const delivered = receivers.reduce((sum, r) => sum + r.received, 0);
    const gaps = receivers.reduce((sum, r) => sum + r.gaps, 0);
    const complete = receivers.every((r) => r.lastSeq === seq);
    for (const socket of sockets) socket.close();

    process.stderr.write(`burst done; anchor and REST\n`);
    const anchorDelays = await busAnchor(server, bench, seq + 1);
    seq += paced.events;

    const rest = await restLoad(`http://127.0.0.1:${port}/api/agent/status?id=${session}`, { authorization: `Bearer ${token}` });
    const unauthorized = await fetch(`http://127.0.0.1:${port}/api/agent/status?id=${session}`);
    const busStatus = await busStatusLoad(bench);

    const figures = {
      load_average_1m: { start: round(loadAtStart), end: round(loadavg()[0]) },
      websocket: {
        clients,
        paced: {
          events_per_round: paced.events,
          rounds: pacedRounds,
          rate_per_s: paced.perSecond,
          ...summary(pacedDelays),
          samples: pacedDelays.length,
          p99_ms_by_round: rounds.map((round) => round.p99_ms),
          median_round_p99_ms: [...rounds.map((round) => round.p99_ms)].sort((a, b) => a - b)[Math.floor(rounds.length / 2)],
        },
        gateway_cpu_ms_per_1000_deliveries: round((pacedCpuMs * 1000) / (paced.events * pacedRounds * clients)),
        burst: {
          events: burstEvents,
          delivered_events_per_s: Math.round((burstEvents * clients) / ((burstEnd - burstStart) / 1000)),
          ...summary(burstDelays),
        },
        all_delivered_in_order: complete && gaps === 0,
        deliveries: delivered,
        gaps,
        target_p99_ms: 50,
        paced_p99_meets_target: percentile(pacedDelays, 99) < 50,
        best_round_p99_meets_target: Math.min(...rounds.map((round) => round.p99_ms)) < 50,
      },
      anchor_bus_subscribers: { clients, events: paced.events, ...summary(anchorDelays) },
      ratio_paced_p99_gateway_over_bus: round(percentile(pacedDelays, 99) / Math.max(0.01, percentile(anchorDelays, 99))),
      rest_status: {
        concurrency: restConcurrency,
        seconds: restSeconds,
        requests_per_s: rest.perSecond,
        p50_ms: rest.p50,
        p99_ms: rest.p99,
        errors: rest.errors,
        auth: "bearer",
        rate_limit_per_minute: restRateLimit,
        unauthenticated_status: unauthorized.status,
      },
      anchor_bus_status: { requests_per_s: busStatus.perSecond, p99_ms: busStatus.p99 },
      ratio_rest_over_bus_rps: round(rest.perSecond / Math.max(1, busStatus.perSecond)),
    };
    const path = writeBenchResult("gateway", figures);
    process.stdout.write(JSON.stringify(figures, null, 2) + `\nwritten to ${path}\n`);
    await bench.close();
  } finally {
    gateway?.kill("SIGTERM");
    if (gateway) await new Promise((resolve) => gateway!.once("exit", resolve));
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

await main();
