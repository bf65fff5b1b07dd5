import pino from "pino";
import { AgentEventSchema, type AgentEvent, type StartRequest } from "@aide/contracts";
import { EventSink } from "../../src/events/event-sink.js";
import { memoryMemoryStore } from "../../src/memory/memory-store.js";
import { Orchestrator } from "../../src/orchestrator.js";
import { memorySessionStore } from "../../src/session/session-store.js";
import type { OrchestratorConfig } from "../../src/config/orchestrator-config.js";
import { FakeCheckpoints, FakeEgress, FakeTools, ScriptedModel } from "./fake-ports.js";

export interface LoopHarness {
  orchestrator: Orchestrator;
  model: ScriptedModel;
  tools: FakeTools;
  checkpoints: FakeCheckpoints;
  egress: FakeEgress;
  events: AgentEvent[];
  store: ReturnType<typeof memorySessionStore>;
  memory: ReturnType<typeof memoryMemoryStore>;
  start(task: string, extra?: Partial<StartRequest>): Promise<string>;
  /** Resolves when an event of this type (after `afterSeq`) was published. */
  waitFor(type: AgentEvent["type"], predicate?: (event: AgentEvent) => boolean): Promise<AgentEvent>;
  /** Waits for the session's run to end and returns its terminal event. */
  finished(session: string): Promise<AgentEvent>;
  /**
   * A restart: this orchestrator goes inert (as if SIGKILLed: it publishes and persists nothing
   * more) and a second one starts over the same durable stores.
   */
  restart(replies: string[]): LoopHarness;
}

export function testConfig(overrides: Partial<OrchestratorConfig> = {}): OrchestratorConfig {
  return {
    approvalTimeoutMs: 600_000,
    workspaceRoots: [],
    unsandboxed: false,
    maxIterations: 25,
    runBudgetMs: 3_600_000,
    contextChars: 200_000,
    modelTimeoutMs: 60_000,
    toolTimeoutMs: 60_000,
    checkpointTimeoutMs: 60_000,
    leaseMs: 30_000,
    instanceId: "test-instance",
    storePauseAfterMs: 3_000,
    diskFullRetryMs: 5_000,
    ...overrides,
  };
}

export function createLoopHarness(
  replies: Array<string | object>,
  options: { config?: Partial<OrchestratorConfig>; shared?: Pick<LoopHarness, "store" | "memory" | "events" | "tools" | "checkpoints" | "egress"> } = {},
): LoopHarness {
  const events = options.shared?.events ?? [];
  const listeners = new Set<() => void>();
  const store = options.shared?.store ?? memorySessionStore();
  const memory = options.shared?.memory ?? memoryMemoryStore();
  const tools = options.shared?.tools ?? new FakeTools();
  const checkpoints = options.shared?.checkpoints ?? new FakeCheckpoints(tools);
  const egress = options.shared?.egress ?? new FakeEgress(tools);
  const model = new ScriptedModel(replies as never);
  const logger = pino({ level: "silent" });
  let dead = false;
  const guardedStore = {
    get: (id: string) => store.get(id),
    list: () => store.list(),
    listLive: () => store.listLive(),
    put: async (record: Parameters<typeof store.put>[0]) => {
      if (!dead) await store.put(record);
    },
    claim: (...args: Parameters<typeof store.claim>) => store.claim(...args),
  };
  let counter = 0;
  const sink = new EventSink({
    now: () => new Date(),
    logger,
    publish: async (_subject, data) => {
      if (dead) return;
      events.push(AgentEventSchema.parse(JSON.parse(new TextDecoder().decode(data))));
      for (const listener of listeners) listener();
    },
  });
  const orchestrator = new Orchestrator({
    model,
    tools,
    checkpoints,
    egress,
    store: guardedStore,
    memory,
    events: sink,
    now: () => new Date(),
    generateId: () => `id${++counter}x${Math.random().toString(36).slice(2, 8)}`,
    logger,
    config: testConfig(options.config),
    instanceId: "test-instance",
    lastEventSeq: async (session) => events.filter((event) => event.session === session).reduce((max, event) => Math.max(max, event.seq), 0),
  });
  const waitFor: LoopHarness["waitFor"] = (type, predicate = () => true) =>
    new Promise((resolve) => {
      const check = () => {
        const found = events.find((event) => event.type === type && predicate(event));
        if (found) {
          listeners.delete(check);
          resolve(found);
        }
      };
      listeners.add(check);
      check();
    });
  const harness: LoopHarness = {
    orchestrator,
    model,
    tools,
    checkpoints,
    egress,
    events,
    store,
    memory,
    async start(task, extra = {}) {
      const record = await orchestrator.start({ task, mode: "act", workspace: process.cwd(), user: "tester", ...extra });
      return record.id;
    },
    waitFor,
    async finished(session) {
      const terminal = new Set(["run.completed", "run.failed", "run.cancelled"]);
      const run = orchestrator.sessions.get(session)?.record.run;
      return new Promise((resolve) => {
        const check = () => {
          const found = events.find((e) => e.session === session && e.run === run && e.depth === 0 && terminal.has(e.type));
          if (found) {
            listeners.delete(check);
            const running = orchestrator.sessions.get(session)?.running;
            if (running) void running.then(() => resolve(found));
            else resolve(found);
          }
        };
        listeners.add(check);
        check();
      });
    },
    restart(nextReplies) {
      dead = true;
      return createLoopHarness(nextReplies, { config: options.config, shared: { store, memory, events, tools, checkpoints, egress } });
    },
  };
  return harness;
}
