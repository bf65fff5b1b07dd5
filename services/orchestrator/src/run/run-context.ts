import type { Logger } from "pino";
import type { ChatMessage, ToolDescriptor } from "@aide/contracts";
import type { CheckpointsPort, EgressJournal, McpPort, ModelPort, ToolsPort } from "../bus/service-ports.js";
import type { OrchestratorConfig } from "../config/orchestrator-config.js";
import type { EventSink } from "../events/event-sink.js";
import type { Memory, MemoryStore } from "../memory/memory-store.js";
import type { SessionRecord } from "../session/session-record.js";
import type { SessionRuntime } from "../session/session-runtime.js";
import type { SessionStore } from "../session/session-store.js";
import type { RunPolicies } from "./run-policies.js";
import type { ModelFit } from "../context/model-fit.js";
import type { InstructionTrustStore } from "../instructions/instruction-trust-store.js";

/** Every source of I/O and nondeterminism the orchestrator uses, injected (STYLE.md "Seams"). */
export interface OrchestratorSeams {
  model: ModelPort;
  tools: ToolsPort;
  checkpoints: CheckpointsPort;
  /** Absent: no MCP tools in the catalog. */
  mcp?: McpPort;
  egress: EgressJournal;
  store: SessionStore;
  memory: MemoryStore;
  /** The person's consent decisions on project instruction files; absent: every file is undecided and nothing is remembered. */
  instructionTrust?: InstructionTrustStore;
  events: EventSink;
  now: () => Date;
  /** Unique, subject-safe ids (letters, digits, '-', '_'). */
  generateId: () => string;
  logger: Logger;
  config: OrchestratorConfig;
  /** The newest event seq of a session in the stream (restart continues after it); 0 when unknown. */
  lastEventSeq?: (session: string) => Promise<number>;
  /**
   * This instance's stable identity (the owner of the runs it executes). A restarted process with
   * the same id takes its sessions back at once; another instance waits for the lease to expire.
   */
  instanceId: string;
  /** Sends a command to the instance that runs the session; resolves with its result or throws its AideError. */
  forward?: (owner: string, command: ForwardedCommand, body: unknown) => Promise<unknown>;
}

export type ForwardedCommand = "decision" | "abort" | "message" | "mode" | "auto_approve";

/** The part of a loop's state that a turn changes. The root run's is its session record (durable). */
export type LoopState = Pick<SessionRecord, "transcript" | "batch" | "iterations" | "tool_log" | "counters" | "checkpointed" | "checkpoints" | "files_changed" | "automation_writes">;

export interface RunContext {
  seams: OrchestratorSeams;
  session: SessionRuntime;
  run: string;
  depth: number;
  task: string;
  state: LoopState;
  /** The whole catalog (tools service + orchestrator tools); routing picks from it each turn. */
  catalog: ToolDescriptor[];
  maxIterations: number;
  canDelegate: boolean;
  /** A child started without write access. */
  readOnlyAgent: boolean;
  policies: RunPolicies;
  startedAtMs: number;
  logger: Logger;
  /**
   * Runs a child agent's loop to its end (`spawn_agent`). Handed in by whoever composes the loop,
   * so the turn steps below it never import the loop itself (no cycle).
   */
  runChild(child: RunContext): Promise<RunOutcome>;
  /** Persists the durable state (a no-op for child agents, which are not durable). */
  persist(): Promise<void>;
  /** The user's memories given to the model this run, with their authors (loaded once: a stable prompt prefix). */
  memories?: Memory[];
  /** The project instructions block of the stable prefix (trusted files only), settled once per run; empty: none. */
  instructions?: string;
  /** The run's context budget in characters (from the model's window; shrunk after CONTEXT_FULL). */
  contextChars?: number;
  /** The model's window, prompt tier and grammar for this run (from its probe profile), resolved once. */
  modelFit?: ModelFit;
  /** The strategies' scratch state, one slot per strategy or shared helper (strategies/strategy-state.ts). */
  strategyState?: Map<string, object>;
  /** Set once attempt_completion was accepted or the run must end. */
  outcome?: RunOutcome;
}

export type RunOutcome =
  | { kind: "done"; result: string; evidence: string[] }
  | { kind: "unverified"; result: string; missing: string[] }
  | { kind: "failed"; code: "ITERATION_LIMIT" | "MISTAKE_LIMIT" | "RUN_BUDGET_EXCEEDED" | "MODEL_FAILED" | "CONTEXT_FULL" | "STALLED" | "INTERNAL"; message: string }
  | { kind: "aborted"; reason: string };

export function appendMessage(context: RunContext, message: ChatMessage): void {
  context.state.transcript.push(message);
}
