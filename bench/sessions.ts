/**
 * bench:sessions — N simultaneous sessions of one scripted task through the real stack
 * (nats-server with JetStream; model with the scripted provider and a per-reply delay; tools;
 * checkpoints; orchestrator; all as processes with their own bus users). Each session, in its own
 * workspace: read two files, one edit the client approves, one command the client approves
 * (`echo ran >> ran.log`, so a double execution shows in the file), then completion. The client
 * (this process) starts the sessions and answers approvals over the bus, as the gateway would.
 *
 * Per N: sessions reaching `done`, event sequences checked from the JetStream stream (per session
 * 1..n with no gap and no duplicate), double executions (ran.log lines ≠ 1, or a call id with
 * more than one stored `tool.started`), live re-deliveries (an event the live subscription saw
 * twice under one seq: a publish retried after its acknowledgement was late, which the stream
 * stored once), p50/p99 session time as a ratio to the model's own time (the scripted delays), peak RSS
 * (VmHWM) per service. `npm run bench:sessions [N,N,…]` (default 10,50,200,500).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { eventStreamName } from "@aide/contracts";
import { startNatsServer, waitForService } from "@aide/runtime";
import { percentile, repoRoot, writeBenchResult } from "./lib/results.js";
import { createBreakdownRecorder } from "./lib/session-breakdown.js";
import { busWriteSetting } from "./lib/bus-write-setting.js";
import { cpuBetween, machineCpu, processTreeCpuMs } from "./lib/machine-cpu.js";

const modelDelayMs = 1_500;
const services = ["model", "tools", "checkpoints", "orchestrator"] as const;
/** A size that has not finished in this long is reported as it stands. */
const perSizeLimitMs = Number(process.env.AIDE_BENCH_SIZE_LIMIT_MS ?? 12 * 60_000);

const replies = [
  { text: "<read_file>\n<path>notes.txt</path>\n</read_file>", delay_ms: modelDelayMs },
  { text: "<read_file>\n<path>greeting.txt</path>\n</read_file>", delay_ms: modelDelayMs },
  { text: "<replace_in_file>\n<path>greeting.txt</path>\n<diff>\n<<<<<<< SEARCH\nhello\n=======\nhello, world\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>", delay_ms: modelDelayMs },
  { text: "<run_command>\n<command>echo ran >> ran.log && cat greeting.txt</command>\n</run_command>", delay_ms: modelDelayMs },
  { text: "<attempt_completion>\n<result>greeting.txt now says hello, world; `cat greeting.txt` printed it.</result>\n</attempt_completion>", delay_ms: modelDelayMs },
];
const modelTimeMs = replies.length * modelDelayMs;

interface Running {
  children: Record<string, ChildProcess>;
  natsServerPid: number | undefined;
  tester: NatsConnection;
  stop(): Promise<void>;
}

/** AIDE_BENCH_LOGS=DIR keeps the services' logs there (warn level and up; AIDE_BENCH_LOG_LEVEL, or AIDE_BENCH_LOG_LEVEL_<SERVICE> for one service, e.g. _CHECKPOINTS=debug for each commit's phases). */
const logRoot = process.env.AIDE_BENCH_LOGS;
/** AIDE_BENCH_CPU_PROF=DIR: every service writes a V8 CPU profile there when it stops (`--cpu-prof`). */
// AIDE_BENCH_CPU_PROF=DIR (or BENCH_SESSIONS_PROFILE=DIR): every service writes a V8 CPU profile there (`node --cpu-prof`).
const cpuProfileRoot = process.env.AIDE_BENCH_CPU_PROF ?? process.env.BENCH_SESSIONS_PROFILE;

async function startStack(dir: string): Promise<Running> {
  const logDirectory = logRoot ?? join(dir, "logs");
  mkdirSync(logDirectory, { recursive: true });
  writeFileSync(join(dir, "transcript.json"), JSON.stringify({ replies }));
  writeFileSync(join(dir, "models.json"), JSON.stringify({ default: "s1", models: [{ id: "s1", provider: "scripted", transcript: join(dir, "transcript.json") }] }));
  const server = await startNatsServer({
    runDir: join(dir, "bus"),
    extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } },
  });
  const tester = await connect({ servers: server.url, user: "tester", pass: server.credentials.tester!.password, inboxPrefix: server.credentials.tester!.inbox_prefix });
  const children: Record<string, ChildProcess> = {};
  const env: Record<string, Record<string, string>> = {
    // AIDE_MODEL_MAX_CONCURRENT from the bench's environment: the model service's admission (default 64 chats at once).
    model: {
      AIDE_MODELS_CONFIG: join(dir, "models.json"),
      AIDE_HOME: join(dir, "home"),
      AIDE_MODEL_DISCOVERY: "off",
      ...(process.env.AIDE_MODEL_MAX_CONCURRENT !== undefined ? { AIDE_MODEL_MAX_CONCURRENT: process.env.AIDE_MODEL_MAX_CONCURRENT } : {}),
    },
    // AIDE_TOOLS_SPAWN_HELPER=off|on from the bench's environment: the spawn helper's A/B.
    tools: {
      AIDE_WORKSPACE_ROOTS: dir,
      AIDE_TOOLS_STATE_DIR: join(dir, "tools-state"),
      ...(process.env.AIDE_TOOLS_SPAWN_HELPER !== undefined ? { AIDE_TOOLS_SPAWN_HELPER: process.env.AIDE_TOOLS_SPAWN_HELPER } : {}),
    },
    // AIDE_CHECKPOINT_MAX_CONCURRENT / _MAX_QUEUED from the bench's environment: the checkpoints service's admission.
    checkpoints: {
      AIDE_WORKSPACE_ROOTS: dir,
      ...Object.fromEntries(["AIDE_CHECKPOINT_MAX_CONCURRENT", "AIDE_CHECKPOINT_MAX_QUEUED"].flatMap((key) => (process.env[key] !== undefined ? [[key, process.env[key]!]] : []))),
    },
    orchestrator: { AIDE_WORKSPACE_ROOTS: dir },
  };
  for (const name of services) {
    const profiling = cpuProfileRoot !== undefined ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfileRoot}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : [];
    const child = spawn(process.execPath, [...profiling, join(repoRoot, "services", name, "dist", "main.js")], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/root",
        AIDE_NATS_URL: server.url,
        AIDE_NATS_CREDS: server.credentialFiles[name]!,
        AIDE_LOG_LEVEL: process.env[`AIDE_BENCH_LOG_LEVEL_${name.toUpperCase()}`] ?? process.env.AIDE_BENCH_LOG_LEVEL ?? "warn",
        ...busWriteSetting,
        ...env[name],
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr?.pipe(createWriteStream(join(logDirectory, `${name}.log`)));
    children[name] = child;
    process.stderr.write(`  starting ${name}\n`);
    await waitForService(tester, name, { timeoutMs: 30_000, stillStarting: () => (child.exitCode !== null ? `exited with ${child.exitCode}` : undefined) });
  }
  return {
    children,
    natsServerPid: server.process.pid,
    tester,
    async stop() {
      for (const child of Object.values(children)) child.kill("SIGTERM");
      await Promise.all(Object.values(children).map((child) => (child.exitCode !== null ? undefined : new Promise((resolve) => child.once("exit", resolve)))));
      await tester.close();
      await server.stop();
    },
  };
}

/** Peak resident set (VmHWM) of a process, in MB. */
function peakRssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const decode = (data: Uint8Array) => JSON.parse(new TextDecoder().decode(data)) as any;

/** Asks until it is answered: a client that is told BUSY (or gets no reply in time) waits and asks again. */
async function command(tester: NatsConnection, name: string, body: unknown): Promise<any> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const reply = decode((await tester.request(`agent.cmd.${name}`, encode(body), { timeout: 60_000 })).data);
      if (reply.ok || reply.error?.code !== "BUSY" || attempt > 50) return reply;
    } catch (error) {
      if (attempt > 5) return { ok: false, error: { code: "CLIENT", message: (error as Error).message } };
    }
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 800));
  }
}

interface SizeFigures {
  sessions: number;
  done: number;
  outcomes: Record<string, number>;
  start_failures: number;
  events_checked: number;
  sessions_with_gaps: number;
  duplicated_events: number;
  double_executions: number;
  /** Of those: workspaces whose ran.log holds more than one line (the command ran twice). */
  commands_run_twice: number;
  /** Of those: call ids with more than one stored tool.started (each a different seq). */
  calls_started_twice: number;
  /** Events the live subscription received twice under one session and seq (stored once). */
  live_redeliveries: number;
  session_ms_p50: number;
  session_ms_p99: number;
  ratio_to_model_p50: number;
  ratio_to_model_p99: number;
  wall_ms: number;
  peak_rss_mb: Record<string, number | undefined>;
  finished_in_time: boolean;
  /** Where each session's time went, from its events (bench/lib/session-breakdown.ts). */
  breakdown: Record<string, unknown>;
  /** Where the machine's CPU went from the first start to the last end (bench/lib/machine-cpu.ts). */
  cpu: Record<string, unknown>;
  first_failures?: string[];
  first_calls_started_twice?: string[];
  first_live_redeliveries?: string[];
}

async function runSize(count: number): Promise<SizeFigures> {
  const dir = mkdtempSync(join(tmpdir(), `aide-bench-sessions-${count}-`));
  const stack = await startStack(dir);
  const { tester } = stack;
  try {
    const workspaces = Array.from({ length: count }, (_, index) => {
      const workspace = join(dir, `ws${index}`);
      mkdirSync(workspace);
      writeFileSync(join(workspace, "notes.txt"), `notes of workspace ${index}\n`);
      writeFileSync(join(workspace, "greeting.txt"), "hello\n");
      return workspace;
    });
    const startedAt = new Map<string, number>();
    const endedAt = new Map<string, number>();
    const outcome = new Map<string, string>();
    /** Per session and seq, how often the live subscription saw it. */
    const seen = new Map<string, number>();
    /** The first few re-delivered events (session/seq type), to read what a retry carried. */
    const redelivered: string[] = [];
    const decided = new Set<string>();
    let startsSettled = false;
    const failures: string[] = [];
    const breakdown = createBreakdownRecorder();
    let allDone!: () => void;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    const subscription = tester.subscribe("agent.evt.>", {
      callback: (_error, message) => {
        const event = decode(message.data);
        if (event.depth === 0) breakdown.event(event);
        if (process.env.AIDE_BENCH_DEBUG && logRoot) writeFileSync(join(logRoot, "events.jsonl"), `${JSON.stringify(event).slice(0, 1500)}\n`, { flag: "a" });
        const seenKey = `${event.session}/${event.seq}`;
        const times = (seen.get(seenKey) ?? 0) + 1;
        seen.set(seenKey, times);
        if (times === 2 && redelivered.length < 5) redelivered.push(`${seenKey} ${event.type}`);
        if (event.type === "approval.requested" && !decided.has(event.payload.approval)) {
          decided.add(event.payload.approval);
          void command(tester, "decision", { session: event.session, approval: event.payload.approval, decision: "approve" });
        }
        if (event.depth === 0 && ["run.completed", "run.failed", "run.cancelled"].includes(event.type) && !endedAt.has(event.session)) {
          endedAt.set(event.session, performance.now());
          breakdown.ended(event.session, Date.now());
          outcome.set(event.session, event.type === "run.completed" ? event.payload.state : event.type);
          if (event.type === "run.failed" && failures.length < 5) failures.push(JSON.stringify(event.payload.error));
          if (endedAt.size === startedAt.size && startsSettled) allDone();
        }
      },
    });
    await tester.flush();
    let startFailures = 0;
    const cpuSnapshot = () => ({
      machine: machineCpu(),
      processes: {
        ...Object.fromEntries(services.map((name) => [name, processTreeCpuMs(stack.children[name]?.pid)])),
        "nats-server": processTreeCpuMs(stack.natsServerPid),
        "bench client": processTreeCpuMs(process.pid),
      },
    });
    const cpuBefore = cpuSnapshot();
    const wallStart = performance.now();
    await Promise.all(
      workspaces.map(async (workspace) => {
        const before = performance.now();
        const sentAt = Date.now();
        const reply = await command(tester, "start", { task: "Change hello to hello, world in greeting.txt, then run `cat greeting.txt` to check it", workspace });
        if (process.env.AIDE_BENCH_DEBUG) process.stderr.write(`  start: ${JSON.stringify(reply).slice(0, 300)}\n`);
        if (!reply.ok) {
          startFailures += 1;
          if (failures.length < 5) failures.push(`start: ${JSON.stringify(reply.error)}`);
          return;
        }
        startedAt.set(reply.result.session, before);
        breakdown.started(reply.result.session, sentAt);
      }),
    );
    startsSettled = true;
    if (endedAt.size === startedAt.size) allDone();
    const progress = setInterval(() => process.stderr.write(`  ${count}: ${startedAt.size} started, ${startFailures} refused, ${endedAt.size} ended\n`), 15_000);
    // The limit's timer is cleared once the size is over: a pending timer kept the process alive
    // (12 min) after the results were written.
    let limit: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([finished.then(() => true), new Promise<boolean>((resolve) => (limit = setTimeout(() => resolve(false), perSizeLimitMs)))]);
    clearTimeout(limit);
    const wallMs = performance.now() - wallStart;
    const cpuAfter = cpuSnapshot();
    clearInterval(progress);
    subscription.unsubscribe();
    const peaks = Object.fromEntries(services.map((name) => [name, peakRssMb(stack.children[name]?.pid)]));

    if (process.env.AIDE_BENCH_DEBUG) process.stderr.write(`  finished: ${JSON.stringify([...outcome.values()])}\n`);
    // Events as stored: every session's seqs must be 1..n, each once.
    const perSession = new Map<string, number[]>();
    /** Stored tool.started events per session and call id. */
    const starts = new Map<string, number>();
    const startedTwice: string[] = [];
    const jsm = await tester.jetstreamManager();
    const info = await jsm.streams.info(eventStreamName);
    let read = 0;
    for (let first = info.state.first_seq; first <= info.state.last_seq; first += 200) {
      const batch = Array.from({ length: Math.min(200, info.state.last_seq - first + 1) }, (_, offset) => jsm.streams.getMessage(eventStreamName, { seq: first + offset }).catch(() => undefined));
      for (const message of await Promise.all(batch)) {
        if (message === undefined) continue;
        const event = decode(message.data);
        const list = perSession.get(event.session) ?? [];
        list.push(event.seq);
        perSession.set(event.session, list);
        if (event.type === "tool.started") {
          const key = `${event.session}/${event.payload.call_id}`;
          starts.set(key, (starts.get(key) ?? 0) + 1);
          if (starts.get(key) === 2 && startedTwice.length < 5) startedTwice.push(`${key} ${event.payload.tool} seq ${event.seq}`);
        }
        read += 1;
      }
    }
    let gaps = 0;
    let duplicates = 0;
    for (const session of startedAt.keys()) {
      const seqs = perSession.get(session) ?? [];
      const unique = new Set(seqs);
      duplicates += seqs.length - unique.size;
      const max = Math.max(0, ...seqs);
      if (unique.size !== max) gaps += 1;
    }
    const callsStartedTwice = [...starts.values()].filter((times) => times > 1).length;
    let commandsRunTwice = 0;
    for (const workspace of workspaces) {
      const log = join(workspace, "ran.log");
      if (existsSync(log) && readFileSync(log, "utf8").trim().split("\n").length > 1) commandsRunTwice += 1;
    }
    const liveRedeliveries = [...seen.values()].reduce((sum, times) => sum + times - 1, 0);
    const times = [...endedAt.entries()].map(([session, end]) => end - (startedAt.get(session) ?? end));
    const outcomes: Record<string, number> = {};
    for (const session of startedAt.keys()) {
      const state = outcome.get(session) ?? "not finished";
      outcomes[state] = (outcomes[state] ?? 0) + 1;
    }
    const p50 = percentile(times, 50);
    const p99 = percentile(times, 99);
    return {
      sessions: count,
      done: outcomes["done"] ?? 0,
      outcomes,
      start_failures: startFailures,
      events_checked: read,
      sessions_with_gaps: gaps,
      duplicated_events: duplicates,
      double_executions: callsStartedTwice + commandsRunTwice,
      commands_run_twice: commandsRunTwice,
      calls_started_twice: callsStartedTwice,
      live_redeliveries: liveRedeliveries,
      session_ms_p50: Math.round(p50),
      session_ms_p99: Math.round(p99),
      ratio_to_model_p50: Math.round((p50 / modelTimeMs) * 100) / 100,
      ratio_to_model_p99: Math.round((p99 / modelTimeMs) * 100) / 100,
      wall_ms: Math.round(wallMs),
      peak_rss_mb: peaks,
      finished_in_time: inTime,
      breakdown: breakdown.summary(modelTimeMs),
      cpu: cpuBetween(cpuBefore, cpuAfter, count),
      ...(failures.length > 0 ? { first_failures: failures } : {}),
      ...(startedTwice.length > 0 ? { first_calls_started_twice: startedTwice } : {}),
      ...(redelivered.length > 0 ? { first_live_redeliveries: redelivered } : {}),
    };
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? "10,50,200,500")
    .split(",")
    .map(Number)
    .filter((value) => Number.isSafeInteger(value) && value > 0);
  const results: SizeFigures[] = [];
  for (const size of sizes) {
    const figures = await runSize(size);
    results.push(figures);
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  }
  const path = writeBenchResult("sessions", {
    model_delay_ms_per_reply: modelDelayMs,
    model_time_ms_per_session: modelTimeMs,
    task: "read notes.txt, read greeting.txt, replace_in_file (approved by the client), run_command `echo ran >> ran.log && cat greeting.txt` (approved), attempt_completion",
    results,
    load_average_1m: Math.round(loadavg()[0] * 10) / 10,
    spawn_helper: process.env.AIDE_TOOLS_SPAWN_HELPER ?? "on (default)",
    bus_coalesce_writes: process.env.AIDE_BUS_COALESCE_WRITES ?? "off (default)",
    model_max_concurrent: process.env.AIDE_MODEL_MAX_CONCURRENT ?? "64 (default)",
    checkpoint_max_concurrent: process.env.AIDE_CHECKPOINT_MAX_CONCURRENT ?? "64 (default)",
    checkpoint_max_queued: process.env.AIDE_CHECKPOINT_MAX_QUEUED ?? "1024 (default)",
    note: "Each size on a fresh stack (default limits: tools 16 requests + 64 queued, 4 commands + 16 queued; orchestrator 64 commands). Session time = start request sent → terminal event seen by the client; ratio = that / the scripted model's own delays. Events are read back from the JetStream stream. Double execution = a call id with two stored tool.started events, or ran.log with more than one line; live re-deliveries (a late-acknowledged publish retried under its message id: the stream stored it once, a core subscriber sees it twice) are counted apart. A shared 2-core machine (see load_average_1m).",
  });
  process.stdout.write(`written to ${path}\n`);
}

await main();
