import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection, Subscription } from "nats";
import { AgentEventSchema, type AgentEvent } from "@aide/contracts";
import { startTestBus, type TestBus } from "../../../../tests/helpers/bus.js";
import { repoRoot, requestJson, startServiceProcess, type ServiceProcess } from "../../../../tests/helpers/service-process.js";

export const sampleProject = join(repoRoot, "services", "orchestrator", "test", "fixtures", "sample-project");

/** Services whose compiled entry exists (others are still being built by their engineers). */
export function built(name: string): boolean {
  return existsSync(join(repoRoot, "services", name, "dist", "main.js"));
}

const stackServices = ["model", "tools", "checkpoints", "orchestrator"];

/** "" when every service of the stack is built; otherwise why the real-process suites are skipped. */
export function stackSkipReason(): string {
  const missing = stackServices.filter((name) => !built(name));
  return missing.length === 0 ? "" : ` [SKIPPED: not built: ${missing.join(", ")}; run npx tsc -b]`;
}

export interface ScriptedReply {
  text?: string;
  tool_calls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  delay_ms?: number;
}

export interface Stack {
  bus: TestBus;
  tester: NatsConnection;
  dir: string;
  workspace: string;
  services: Record<string, ServiceProcess>;
  events: AgentEvent[];
  /** Every event that failed `AgentEventSchema` (must stay empty). */
  invalidEvents: unknown[];
  command(name: string, body: unknown, timeoutMs?: number): Promise<any>;
  /** Resolves with the first event matching (already seen or future). */
  waitFor(predicate: (event: AgentEvent) => boolean, timeoutMs?: number): Promise<AgentEvent>;
  terminal(session: string, run?: string, timeoutMs?: number): Promise<AgentEvent>;
  startOrchestrator(env?: Record<string, string>): Promise<ServiceProcess>;
  /** Messages in the AGENT_AUDIT stream (the egress journal); rejects when the stream is missing. */
  egressCount(): Promise<number>;
  /** The requests a scripted model received (its record file), in order. */
  modelRequests(model?: string): Array<{ messages: Array<{ role: string; content: string }>; tools: Array<{ name: string }> }>;
  stop(): Promise<void>;
}

/**
 * A real nats-server with JetStream, the real model (scripted provider), tools, checkpoints and
 * orchestrator processes, a copy of the sample project as the workspace, and an observer that
 * collects and validates every event.
 */
export async function startStack(
  replies: ScriptedReply[],
  options: {
    orchestratorEnv?: Record<string, string>;
    toolsEnv?: Record<string, string>;
    models?: Record<string, ScriptedReply[]>;
    /** Extra registry fields per model id (e.g. `editFormat`), merged into its models.json entry. */
    modelFields?: Record<string, Record<string, unknown>>;
    /** Context window of the scripted models in tokens (the model service's default is 4096). */
    contextBudget?: number;
    /** When set: `$AIDE_HOME/mcp.json` servers, and the MCP service runs with them. */
    mcpServers?: Record<string, unknown>;
  } = {},
): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), "aide-orch-"));
  const workspace = join(dir, "workspace");
  cpSync(sampleProject, workspace, { recursive: true });
  // One scripted model per scenario (each replays its own transcript); "s1" is the default.
  const scripts: Record<string, ScriptedReply[]> = { s1: replies, ...options.models };
  const models = Object.entries(scripts).map(([id, list]) => {
    const transcript = join(dir, `transcript-${id}.json`);
    writeFileSync(transcript, JSON.stringify({ replies: list }));
    const budget = options.contextBudget === undefined ? {} : { contextBudget: options.contextBudget };
    return { id, provider: "scripted", transcript, record: join(dir, id === "s1" ? "model-requests.jsonl" : `model-requests-${id}.jsonl`), ...budget, ...options.modelFields?.[id] };
  });
  const modelsConfig = join(dir, "models.json");
  writeFileSync(modelsConfig, JSON.stringify({ default: "s1", models }));
  const bus = await startTestBus();
  const tester = await bus.connectAs("tester");
  const events: AgentEvent[] = [];
  const invalidEvents: unknown[] = [];
  const listeners = new Set<() => void>();
  const subscription: Subscription = tester.subscribe("agent.evt.>", {
    callback: (error, message) => {
      if (error) return;
      const raw = JSON.parse(new TextDecoder().decode(message.data));
      const parsed = AgentEventSchema.safeParse(raw);
      if (parsed.success) events.push(parsed.data);
      else invalidEvents.push(raw);
      for (const listener of [...listeners]) listener();
    },
  });
  await tester.flush();
  const roots = { AIDE_WORKSPACE_ROOTS: dir };
  const services: Record<string, ServiceProcess> = {};
  const orchestrators: ServiceProcess[] = [];
  const startOrchestrator = async (env: Record<string, string> = {}) => {
    services.orchestrator = await startServiceProcess(bus, "orchestrator", {
      // A fixed id, as `aide up` gives its orchestrator (a restart resumes at once); "" claims one on the bus.
      env: { ...roots, AIDE_ORCHESTRATOR_ID: "orchestrator-stack", AIDE_LOG_LEVEL: "info", ...options.orchestratorEnv, ...env },
      pinger: tester,
    });
    orchestrators.push(services.orchestrator);
    return services.orchestrator;
  };
  // A service that fails to start must not leave the ones started before it (and the bus) running.
  try {
    services.model = await startServiceProcess(bus, "model", { env: { AIDE_MODELS_CONFIG: modelsConfig, AIDE_HOME: join(dir, "home"), AIDE_LOG_LEVEL: "info" }, pinger: tester });
    services.tools = await startServiceProcess(bus, "tools", { env: { ...roots, AIDE_LOG_LEVEL: "info", ...options.toolsEnv }, pinger: tester });
    services.checkpoints = await startServiceProcess(bus, "checkpoints", { env: { ...roots, AIDE_LOG_LEVEL: "info" }, pinger: tester });
    if (options.mcpServers) {
      const mcpHome = join(dir, "mcp-home");
      (await import("node:fs")).mkdirSync(mcpHome, { mode: 0o700 });
      writeFileSync(join(mcpHome, "mcp.json"), JSON.stringify({ servers: options.mcpServers }));
      services.mcp = await startServiceProcess(bus, "mcp", { env: { ...roots, AIDE_HOME: mcpHome, AIDE_LOG_LEVEL: "info" }, pinger: tester, readyTimeoutMs: 60_000 });
    }
    await startOrchestrator();
  } catch (error) {
    subscription.unsubscribe();
    for (const service of Object.values(services)) await service.stop().catch(() => undefined);
    await bus.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const waitFor: Stack["waitFor"] = (predicate, timeoutMs = 30_000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(check);
        const failures = events.filter((e) => e.type === "run.failed").map((e) => JSON.stringify(e.payload));
        reject(new Error(`no matching event within ${timeoutMs} ms; saw: ${events.map((e) => `${e.seq}:${e.type}`).join(" ")} ${failures.join(" ")}`));
      }, timeoutMs);
      const check = () => {
        const found = events.find(predicate);
        if (!found) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve(found);
      };
      listeners.add(check);
      check();
    });
  return {
    bus,
    tester,
    dir,
    workspace,
    services,
    events,
    invalidEvents,
    command: (name, body, timeoutMs = 20_000) => requestJson(tester, `agent.cmd.${name}`, body, timeoutMs),
    waitFor,
    terminal: (session, run, timeoutMs) =>
      waitFor((e) => e.session === session && e.depth === 0 && (run === undefined || e.run === run) && ["run.completed", "run.failed", "run.cancelled"].includes(e.type), timeoutMs),
    startOrchestrator,
    async egressCount() {
      // A missing audit stream is an error, not an empty journal: "nothing was journaled" must be able to fail.
      const jsm = await tester.jetstreamManager();
      const info = await jsm.streams.info("AGENT_AUDIT");
      return info.state.messages;
    },
    modelRequests(model = "s1") {
      const file = join(dir, model === "s1" ? "model-requests.jsonl" : `model-requests-${model}.jsonl`);
      if (!existsSync(file)) return [];
      return readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    },
    async stop() {
      subscription.unsubscribe();
      for (const service of new Set([...orchestrators, ...Object.values(services)])) await service.stop().catch(() => undefined);
      await bus.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every session's seqs are 1..n without gaps or repeats. */
export function assertContiguous(events: AgentEvent[], session: string): number[] {
  const seqs = events
    .filter((event) => event.session === session)
    .map((event) => event.seq)
    .sort((a, b) => a - b);
  seqs.forEach((seq, index) => {
    if (seq !== index + 1) throw new Error(`seq ${seq} at position ${index + 1}: ${seqs.join(",")}`);
  });
  return seqs;
}
