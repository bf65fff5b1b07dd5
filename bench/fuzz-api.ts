/**
 * npm run bench:fuzz-api — generated input at the gateway's REST API and WebSocket, on a real stack
 * (nats-server with JetStream; model with the scripted provider; tools; checkpoints; orchestrator;
 * gateway; all as processes with their own bus users, as bench:sessions starts them).
 *
 * REST: schemathesis (an exact version, installed into a venv in the model cache) against the
 * gateway's own openapi.json — all checks, every phase (examples, coverage, fuzzing, stateful
 * through the spec's links; the WebSocket's operation left to the WebSocket fuzz, as schemathesis
 * speaks only HTTP), rounds with the bearer token and without, until the time budget
 * (AIDE_FUZZ_SECONDS, default 600) is spent. WebSocket, at the same time: AIDE_FUZZ_WS_CLIENTS
 * (default 24) clients sending malformed handshakes and frames, oversized frames, out-of-order and
 * nonsense resume points (`since`), hanging up at random (bench/lib/ws-fuzz.ts), while observer
 * clients follow a real session and a probe asks /api/health every second.
 *
 * Afterwards: every process still up (none exited), no 5xx from the gateway (schemathesis's
 * not_a_server_error and the gateway's own INTERNAL log lines), every response as documented
 * (schemathesis's checks), the observers' event sequences without gap or duplicate and equal to
 * the stream's, every session's stored events 1..n. Writes bench/results/fuzz-api/report.json and
 * report.md: counts of requests, operations, failures found (by check), fixed (the earlier
 * findings in bench/fuzz-api/findings.json, each with its regression test) and left.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import WebSocket from "ws";
import { eventStreamName } from "@aide/contracts";
import { startNatsServer, waitForService } from "@aide/runtime";
import { benchRoot, repoRoot } from "./lib/results.js";
import { ensureSchemathesis, schemathesisVersion } from "./lib/schemathesis.js";
import { fuzzWebSocket } from "./lib/ws-fuzz.js";

const budgetSeconds = Number(process.env.AIDE_FUZZ_SECONDS ?? 600);
const wsClients = Number(process.env.AIDE_FUZZ_WS_CLIENTS ?? 24);
const outDir = join(benchRoot, "results", process.env.AIDE_FUZZ_OUT ?? "fuzz-api");
const services = ["model", "tools", "checkpoints", "orchestrator"] as const;

const replies = [
  { text: "<read_file>\n<path>notes.txt</path>\n</read_file>", delay_ms: 200 },
  { text: "<replace_in_file>\n<path>notes.txt</path>\n<diff>\n<<<<<<< SEARCH\nhello\n=======\nhello, world\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>", delay_ms: 200 },
  { text: "<run_command>\n<command>echo ran >> ran.log</command>\n</run_command>", delay_ms: 200 },
  { text: "<attempt_completion>\n<result>notes.txt now says hello, world.</result>\n</attempt_completion>", delay_ms: 200 },
];

interface Stack {
  children: Record<string, ChildProcess>;
  tester: NatsConnection;
  port: number;
  token: string;
  workspace: string;
  logs: string;
  stop(): Promise<void>;
}

async function startStack(dir: string): Promise<Stack> {
  const logs = join(dir, "logs");
  mkdirSync(logs, { recursive: true });
  const workspace = join(dir, "ws");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "notes.txt"), "hello\n");
  writeFileSync(join(dir, "transcript.json"), JSON.stringify({ replies: Array.from({ length: 500 }, () => replies).flat() }));
  writeFileSync(join(dir, "models.json"), JSON.stringify({ default: "s1", models: [{ id: "s1", provider: "scripted", transcript: join(dir, "transcript.json") }] }));
  const server = await startNatsServer({ runDir: join(dir, "bus"), extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } } });
  const tester = await connect({ servers: server.url, user: "tester", pass: server.credentials.tester!.password, inboxPrefix: server.credentials.tester!.inbox_prefix });
  const children: Record<string, ChildProcess> = {};
  // A bench that dies leaves no stack behind.
  process.once("exit", () => {
    for (const child of Object.values(children)) if (child.exitCode === null) child.kill("SIGKILL");
    server.process.kill("SIGKILL");
  });
  const env: Record<string, Record<string, string>> = {
    model: { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: join(dir, "home"), AIDE_MODEL_DISCOVERY: "off" },
    tools: { AIDE_WORKSPACE_ROOTS: workspace, AIDE_TOOLS_STATE_DIR: join(dir, "tools-state") },
    checkpoints: { AIDE_WORKSPACE_ROOTS: workspace },
    orchestrator: { AIDE_WORKSPACE_ROOTS: workspace, AIDE_UNSANDBOXED_SERVICES: "1" },
  };
  const base = (name: string) => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    AIDE_NATS_URL: server.url,
    AIDE_NATS_CREDS: server.credentialFiles[name]!,
    AIDE_LOG_LEVEL: "warn",
  });
  for (const name of services) {
    const child = spawn(process.execPath, [join(repoRoot, "services", name, "dist", "main.js")], { env: { ...base(name), ...env[name] }, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.pipe(createWriteStream(join(logs, `${name}.log`)));
    children[name] = child;
    await waitForService(tester, name, { timeoutMs: 60_000, stillStarting: () => (child.exitCode !== null ? `exited with ${child.exitCode}` : undefined) });
  }
  const token = randomBytes(24).toString("base64url");
  const tokenFile = join(dir, "gateway.token");
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  // Info level: the port line; INTERNAL answers are logged at error level ("request failed").
  const gateway = spawn(process.execPath, [join(repoRoot, "services", "gateway", "dist", "main.js")], {
    env: { ...base("gateway"), AIDE_LOG_LEVEL: "info", AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_GATEWAY_RATE_LIMIT: "10000000", AIDE_HOME: join(dir, "home") },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.gateway = gateway;
  const gatewayLog = createWriteStream(join(logs, "gateway.log"));
  let head = "";
  const port = await new Promise<number>((resolve, reject) => {
    gateway.stderr?.on("data", (chunk: Buffer) => {
      gatewayLog.write(chunk);
      if (head.length < 100_000) head += chunk.toString();
      const match = /"port":(\d+)/.exec(head);
      if (match) resolve(Number(match[1]));
    });
    gateway.once("exit", (code) => reject(new Error(`gateway exited with ${code}: ${head}`)));
  });
  return {
    children,
    tester,
    port,
    token,
    workspace,
    logs,
    async stop() {
      for (const child of Object.values(children)) if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.all(Object.values(children).map((child) => (child.exitCode !== null ? undefined : new Promise((resolve) => child.once("exit", resolve)))));
      await tester.close();
      await server.stop();
    },
  };
}

/** Every stored event of the event stream, by session: its seqs in order. */
async function storedSeqs(tester: NatsConnection): Promise<Map<string, number[]>> {
  const manager = await tester.jetstreamManager();
  const info = await manager.streams.info(eventStreamName);
  const bySession = new Map<string, number[]>();
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
    const message = await manager.streams.getMessage(eventStreamName, { seq }).catch(() => undefined);
    if (!message) continue;
    const event = JSON.parse(new TextDecoder().decode(message.data)) as { session: string; seq: number };
    bySession.set(event.session, [...(bySession.get(event.session) ?? []), event.seq]);
  }
  return bySession;
}

interface Observer {
  seqs: number[];
  unexpectedCloses: string[];
  socket: WebSocket;
}

/** A well-behaved client following one session from the start, as the panel does. */
function observe(port: number, token: string, session: string): Observer {
  const observer: Observer = { seqs: [], unexpectedCloses: [], socket: undefined as unknown as WebSocket };
  const open = () => {
    const since = observer.seqs.at(-1) ?? 0;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/events?session=${session}&since=${since}`, { headers: { authorization: `Bearer ${token}` } });
    observer.socket = socket;
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { type: string; event?: { seq: number } };
      if (frame.type === "event" && frame.event) observer.seqs.push(frame.event.seq);
    });
    socket.on("close", (code, reason) => {
      if ((socket as unknown as { ended?: boolean }).ended) return;
      // 4000-range resume closes tell the client to come back from where it is: that is the protocol.
      if (code !== 1000) observer.unexpectedCloses.push(`${code} ${reason.toString().slice(0, 60)}`);
      setTimeout(open, 200);
    });
    socket.on("error", () => undefined);
  };
  open();
  return observer;
}

interface SchemathesisRound {
  authenticated: boolean;
  seconds: number;
  exit: number | null;
  requests: number;
  operations: number;
  failures: Array<{ check: string; operation: string; message: string }>;
  /** The stateful phase's links followed, of those the spec has (schemathesis's summary). */
  links_covered?: number;
  links_total?: number;
}

/** One schemathesis run; counts from its ndjson event stream. */
async function runSchemathesis(binary: string, spec: string, port: number, token: string | undefined, seconds: number, workspace: string, reportDir: string): Promise<SchemathesisRound> {
  mkdirSync(reportDir, { recursive: true });
  const ndjson = join(reportDir, "events.ndjson");
  const args = [
    "--config-file",
    join(benchRoot, "fuzz-api", "schemathesis.toml"),
    "run",
    spec,
    "--url",
    `http://127.0.0.1:${port}`,
    "--checks",
    "all",
    "--max-time",
    String(seconds),
    "--workers",
    "2",
    "--report",
    "ndjson",
    "--report-ndjson-path",
    ndjson,
    "--request-timeout",
    "30",
    "--suppress-health-check",
    "all",
    "--continue-on-failure",
    "--no-color",
    "--exclude-operation-id",
    "getEvents",
  ];
  if (token) args.push("-H", `Authorization: Bearer ${token}`);
  const started = Date.now();
  const child = spawn("nice", [binary, ...args], {
    env: { ...process.env, SCHEMATHESIS_HOOKS: "hooks", PYTHONPATH: join(benchRoot, "fuzz-api"), AIDE_FUZZ_WORKSPACE: workspace },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exit = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  writeFileSync(join(reportDir, "output.txt"), output);
  const round: SchemathesisRound = { authenticated: token !== undefined, seconds: Math.round((Date.now() - started) / 1000), exit, requests: 0, operations: 0, failures: [] };
  const operations = new Set<string>();
  const seen = new Set<string>();
  if (existsSync(ndjson)) {
    for (const line of readFileSync(ndjson, "utf8").split("\n")) {
      if (!line.trim()) continue;
      let event: Record<string, any>;
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      // Each event is {"<Kind>": {...}}: ScenarioFinished events hold the recorder with the cases, calls and checks.
      const [kind, body] = Object.entries(event)[0] ?? [];
      if (kind !== "ScenarioFinished" || !body?.recorder) continue;
      const recorder = body.recorder;
      const labelOf = (caseId: string): string => {
        const request = recorder.interactions?.[caseId]?.request;
        if (!request?.uri) return String(recorder.label ?? "");
        return `${request.method} ${new URL(request.uri).pathname.replace(/\/api\/eval\/latest\/[^/]+$/, "/api/eval/latest/{name}")}`;
      };
      for (const caseId of Object.keys(recorder.interactions ?? {})) {
        round.requests += 1;
        operations.add(labelOf(caseId));
      }
      for (const [caseId, checks] of Object.entries(recorder.checks ?? {}) as Array<[string, any[]]>) {
        for (const check of checks ?? []) {
          if (String(check.status).toLowerCase() !== "failure") continue;
          const failure = check.failure_info?.failure ?? {};
          const status = recorder.interactions?.[caseId]?.response?.status_code;
          const message = `${failure.title ?? failure.type ?? ""}${failure.message ? `: ${failure.message}` : ""}`.replace(/\s+/g, " ").slice(0, 300);
          const operation = labelOf(caseId);
          const key = `${check.name}|${operation}|${failure.title ?? message}`;
          if (seen.has(key)) continue;
          seen.add(key);
          round.failures.push({ check: check.name, operation, message: status !== undefined ? `[${status}] ${message}` : message });
        }
      }
    }
  }
  // Operations of the spec only (an undeclared method or a path the spec lacks is a probe, not an operation).
  const declared = new Set<string>();
  for (const [path, methods] of Object.entries(JSON.parse(readFileSync(spec, "utf8")).paths as Record<string, Record<string, unknown>>))
    for (const method of Object.keys(methods)) declared.add(`${method.toUpperCase()} ${path}`);
  round.operations = [...operations].filter((label) => declared.has(label)).length;
  const links = /API Links:\s+(\d+) covered \/ \d+ selected \/ (\d+) total/.exec(output);
  if (links) {
    round.links_covered = Number(links[1]);
    round.links_total = Number(links[2]);
  }
  return round;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "aide-fuzz-api-"));
  process.stderr.write(`bench:fuzz-api: ${budgetSeconds} s, ${wsClients} WebSocket fuzz clients, in ${dir}\n`);
  const binary = ensureSchemathesis();
  const stack = await startStack(dir);
  const { port, token } = stack;
  const auth = { authorization: `Bearer ${token}` };
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { ...auth, ...(init.body ? { "content-type": "application/json" } : {}), ...(init.headers as Record<string, string> | undefined) } });
  const spec = join(dir, "openapi.json");
  writeFileSync(spec, await (await api("/api/openapi.json")).text());

  // Sessions that exist before the fuzz: the observers follow the first; resume points are drawn around their seqs.
  const seeded: string[] = [];
  for (let index = 0; index < 3; index += 1) {
    const started = (await (
      await api("/api/agent/start", { method: "POST", body: JSON.stringify({ task: `seeded task ${index}`, workspace: stack.workspace, auto_approve: { edits: true, commands: [] } }) })
    ).json()) as { session?: string };
    if (started.session) seeded.push(started.session);
  }
  const known = new Map<string, number>();
  const refreshSessions = async () => {
    const listed = (await (await api("/api/agent/sessions?limit=50")).json().catch(() => ({}))) as { sessions?: Array<{ id: string; last_seq: number }> };
    for (const session of listed.sessions ?? []) known.set(session.id, session.last_seq);
  };
  await refreshSessions();
  const observers = seeded.slice(0, 1).flatMap((session) => Array.from({ length: 4 }, () => observe(port, token, session)));

  const until = Date.now() + budgetSeconds * 1000;
  const health = { probes: 0, failed: 0, slowest_ms: 0 };
  const probing = (async () => {
    while (Date.now() < until) {
      const at = Date.now();
      health.probes += 1;
      const ok = await api("/api/health", { signal: AbortSignal.timeout(5_000) }).then(
        (response) => response.status === 200,
        () => false,
      );
      if (!ok) health.failed += 1;
      health.slowest_ms = Math.max(health.slowest_ms, Date.now() - at);
      await refreshSessions().catch(() => undefined);
      // Keeps events flowing on an observed session: a follow-up message (refused while a run is in progress: fine).
      if (seeded[0] && health.probes % 10 === 0) await api("/api/agent/message", { method: "POST", body: JSON.stringify({ session: seeded[0], text: "Once more." }) }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - at))));
    }
  })();
  const wsFuzz = fuzzWebSocket({ port, token, sessions: () => [...known].map(([id, lastSeq]) => ({ id, lastSeq })) }, wsClients, until);

  // Schemathesis rounds: four of five seconds with the token, one without.
  const rounds: SchemathesisRound[] = [];
  let round = 0;
  while (Date.now() < until - 20_000) {
    const left = Math.floor((until - Date.now()) / 1000);
    const authenticated = round % 2 === 0;
    const seconds = Math.max(15, Math.min(left, authenticated ? Math.ceil(budgetSeconds * 0.4) : Math.ceil(budgetSeconds * 0.1)));
    process.stderr.write(`  schemathesis round ${round + 1} (${authenticated ? "with" : "without"} the token, ${seconds} s)\n`);
    rounds.push(await runSchemathesis(binary, spec, port, authenticated ? token : undefined, seconds, stack.workspace, join(dir, `round-${round + 1}`)));
    round += 1;
  }
  const [ws] = await Promise.all([wsFuzz, probing]);
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  // The stack after it all.
  const exited = Object.entries(stack.children)
    .filter(([, child]) => child.exitCode !== null)
    .map(([name, child]) => `${name} (${child.exitCode})`);
  const stillAnswers = await api("/api/health").then(
    (response) => response.status,
    () => 0,
  );
  const gatewayLog = readFileSync(join(stack.logs, "gateway.log"), "utf8");
  const internal = gatewayLog.split("\n").filter((line) => line.includes('"request failed"'));
  const stored = await storedSeqs(stack.tester);
  const sessionGaps = [...stored].filter(([, seqs]) => seqs.some((seq, index) => seq !== index + 1)).map(([session]) => session);
  const observed = seeded[0] ? (stored.get(seeded[0]) ?? []) : [];
  const observerProblems = observers.flatMap((observer, index) => {
    const problems: string[] = [];
    const duplicates = observer.seqs.length - new Set(observer.seqs).size;
    if (duplicates > 0) problems.push(`observer ${index + 1}: ${duplicates} duplicated events`);
    if (observer.seqs.some((seq, at) => at > 0 && seq <= observer.seqs[at - 1]!)) problems.push(`observer ${index + 1}: events out of order`);
    if (observer.seqs.length !== observed.length) problems.push(`observer ${index + 1}: ${observer.seqs.length} events, the stream holds ${observed.length}`);
    if (observer.unexpectedCloses.length > 0) problems.push(`observer ${index + 1}: closed ${observer.unexpectedCloses.join(", ")}`);
    return problems;
  });
  for (const observer of observers) {
    (observer.socket as unknown as { ended: boolean }).ended = true;
    observer.socket.close();
  }
  await stack.stop();

  const restFailures = rounds.flatMap((each) => each.failures);
  const uniqueRest = [...new Map(restFailures.map((failure) => [`${failure.check}|${failure.operation}|${failure.message}`, failure])).values()];
  const findings = JSON.parse(readFileSync(join(benchRoot, "fuzz-api", "findings.json"), "utf8")) as Array<{ finding: string; test: string }>;
  const stackProblems = [
    ...exited.map((name) => `process exited: ${name}`),
    ...(stillAnswers === 200 ? [] : [`the gateway answered /api/health ${stillAnswers} after the fuzz`]),
    ...internal.slice(0, 20).map((line) => `INTERNAL: ${line.slice(0, 200)}`),
    ...sessionGaps.map((session) => `stored events of ${session} not 1..n`),
    ...observerProblems,
    ...(health.failed > 0 ? [`${health.failed} of ${health.probes} health probes failed`] : []),
  ];
  const left = uniqueRest.length + ws.failures.length + stackProblems.length;
  const report = {
    bench: "fuzz-api",
    schemathesis: schemathesisVersion,
    budget_s: budgetSeconds,
    load_average: loadavg().map((value) => Math.round(value * 100) / 100),
    rest: {
      rounds: rounds.map(({ failures, ...rest }) => ({ ...rest, failures: failures.length })),
      requests: rounds.reduce((sum, each) => sum + each.requests, 0),
      operations: Math.max(0, ...rounds.map((each) => each.operations)),
      links_covered: Math.max(0, ...rounds.map((each) => each.links_covered ?? 0)),
      operations_in_spec: Object.values(JSON.parse(readFileSync(spec, "utf8")).paths as Record<string, object>).reduce((sum, path) => sum + Object.keys(path).length, 0),
      failures: uniqueRest,
    },
    websocket: { clients: wsClients, ...ws, failures: ws.failures.slice(0, 50), failure_count: ws.failures.length },
    stack: {
      health,
      sessions_stored: stored.size,
      events_stored: [...stored.values()].reduce((sum, seqs) => sum + seqs.length, 0),
      observers: observers.length,
      observed_events: observers.map((observer) => observer.seqs.length),
      problems: stackProblems,
    },
    failures: { found: left, fixed: findings.length, left, fixed_findings: findings },
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "report.json"), JSON.stringify(report, null, 2) + "\n");
  writeFileSync(join(outDir, "report.md"), markdown(report));
  process.stderr.write(`${markdown(report)}\nwrote ${outDir}/report.{json,md}\n`);
  if (process.env.AIDE_FUZZ_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
  else process.stderr.write(`kept ${dir}\n`);
  process.exit(0);
}

function markdown(report: any): string {
  const lines = [
    "# bench:fuzz-api",
    "",
    `schemathesis ${report.schemathesis} against the gateway's own openapi.json, all checks and phases (stateful through the spec's links), with the token and without (the WebSocket's operation left to the WebSocket fuzz); a WebSocket fuzz at the same time; on a real stack (nats-server, model with scripted replies, tools, checkpoints, orchestrator, gateway as processes). Budget ${report.budget_s} s; load average at the end ${report.load_average.join(" / ")}.`,
    "",
    "| | count |",
    "|---|---:|",
    `| REST requests | ${report.rest.requests} |`,
    `| REST operations exercised (of ${report.rest.operations_in_spec} in the spec) | ${report.rest.operations} |`,
    `| OpenAPI links followed in a stateful phase (most in one round) | ${report.rest.links_covered} |`,
    `| schemathesis rounds (with / without the token) | ${report.rest.rounds.filter((r: any) => r.authenticated).length} / ${report.rest.rounds.filter((r: any) => !r.authenticated).length} |`,
    `| WebSocket connections (raw handshakes among them) | ${report.websocket.connections} (${report.websocket.raw_handshakes}) |`,
    `| WebSocket frames sent (oversized among them) | ${report.websocket.frames_sent} (${report.websocket.oversized_frames}) |`,
    `| health probes during the fuzz (failed) | ${report.stack.health.probes} (${report.stack.health.failed}), slowest ${report.stack.health.slowest_ms} ms |`,
    `| sessions / events stored | ${report.stack.sessions_stored} / ${report.stack.events_stored} |`,
    `| observer clients, events each received | ${report.stack.observers}: ${report.stack.observed_events.join(", ")} |`,
    `| failures found this run | ${report.failures.found} |`,
    `| earlier findings fixed (each with a regression test) | ${report.failures.fixed} |`,
    `| failures left | ${report.failures.left} |`,
    "",
  ];
  if (report.rest.failures.length > 0) {
    lines.push("## REST failures", "", "| check | operation | message |", "|---|---|---|");
    for (const failure of report.rest.failures) lines.push(`| ${failure.check} | ${failure.operation} | ${String(failure.message).replace(/\|/g, "\\|").replace(/\n/g, " ")} |`);
    lines.push("");
  }
  if (report.websocket.failure_count > 0) {
    lines.push("## WebSocket failures", "");
    for (const failure of report.websocket.failures) lines.push(`- ${failure.kind}: ${failure.detail}`);
    lines.push("");
  }
  if (report.stack.problems.length > 0) {
    lines.push("## Stack problems", "");
    for (const problem of report.stack.problems) lines.push(`- ${problem}`);
    lines.push("");
  }
  lines.push(
    "## WebSocket outcomes",
    "",
    ...Object.entries(report.websocket.outcomes)
      .sort((a: any, b: any) => b[1] - a[1])
      .map(([outcome, count]) => `- ${outcome}: ${count}`),
    "",
  );
  lines.push("## Earlier findings, fixed", "", ...report.failures.fixed_findings.map((each: any) => `- ${each.finding} (${each.test})`), "");
  return lines.join("\n");
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench:fuzz-api failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
