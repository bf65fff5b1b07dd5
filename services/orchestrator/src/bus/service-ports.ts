import type {
  InstructionFile,
  EditFormat,
  ModelProfile,
  Checkpoint,
  CheckpointCommitRequest,
  CheckpointRestoreRequest,
  ModelChatRequest,
  ModelChatResult,
  ToolCall,
  ToolDescriptor,
  ToolPreview,
  ToolResult,
  McpCallRequest,
  McpCallResult,
  McpList,
} from "@aide/contracts";
import type { z } from "zod";
import type { CheckpointRestoreResultSchema } from "@aide/contracts";

/**
 * The three services the loop talks to, as injected seams. Each method throws an AideError for
 * a failed request (UNAVAILABLE, TIMEOUT, a service's own code); callers decide what is fatal.
 */
export interface ModelPort {
  /** `onDelta` is called for each streamed text delta before the final reply resolves. */
  chat(request: ModelChatRequest, onDelta: (text: string) => void, signal?: AbortSignal): Promise<ModelChatResult>;
  /**
   * The context window (tokens) of a model, or of the default one; undefined when unknown. Must not
   * throw: a model service that does not answer leaves the configured character budget in force.
   */
  contextTokens?(model: string | undefined): Promise<number | undefined>;
  /**
   * The model's capability profile (the model service probes it once per file or endpoint and
   * caches it); undefined when there is none or the service does not answer. Must not throw.
   */
  profile?(model: string | undefined): Promise<ModelProfile | undefined>;
  /** The model's listed window and provider (or the default model's); undefined when unknown. Must not throw. */
  modelInfo?(model: string | undefined): Promise<{ contextTokens: number; provider: string; editFormat?: EditFormat } | undefined>;
  /**
   * The ids the model service offers (configured and discovered) and its default; undefined when
   * it does not answer (a start then goes ahead and the run reports the model's error). Must not throw.
   */
  models?(): Promise<{ ids: string[]; default: string; hint?: string } | undefined>;
}

export interface ToolsExecOptions {
  network: boolean;
  expectedDigests?: Record<string, string>;
  timeoutMs?: number;
}

export interface ToolsPort {
  list(): Promise<ToolDescriptor[]>;
  /** Kills and reaps the session's background processes; must not throw (a failure is logged by the caller's catch). */
  close?(session: string): Promise<void>;
  preview(session: string, workspace: string, call: ToolCall): Promise<ToolPreview>;
  exec(session: string, workspace: string, call: ToolCall, options: ToolsExecOptions): Promise<ToolResult>;
  /** Throws WORKSPACE_NOT_SERVED when the tools instances on the bus serve other roots only (workspace affinity). */
  checkWorkspace?(workspace: string): Promise<void>;
  /** The project instruction files of these workspace-relative folders ("" the root), read through the jail (`agent.tools.instructions`). */
  instructions?(session: string, workspace: string, folders: string[]): Promise<InstructionFile[]>;
}

/** The MCP service (services/mcp). Its tools join the catalog; its calls pass the same gate. */
export interface McpPort {
  /** The catalog for a workspace (the person's servers and that workspace's trusted ones). Must not throw: undefined when the service does not answer. */
  list(workspace: string): Promise<McpList | undefined>;
  /** One call; a failure the model should see is a result with is_error. Throws an AideError when the service cannot be reached. */
  call(request: McpCallRequest): Promise<McpCallResult>;
  /** Cancels an in-flight call (run aborted). Must not throw. */
  cancel(callId: string): Promise<void>;
}

export type CheckpointRestoreResult = z.infer<typeof CheckpointRestoreResultSchema>;

export interface CheckpointsPort {
  /** Throws WORKSPACE_NOT_SERVED when the checkpoints instances on the bus serve other roots only. */
  checkWorkspace?(workspace: string): Promise<void>;
  commit(request: CheckpointCommitRequest): Promise<Checkpoint>;
  restore(request: CheckpointRestoreRequest): Promise<CheckpointRestoreResult>;
  /** Keeps the workspace's shadow repository bounded (the last N tasks, repacked). */
  prune?(workspace: string): Promise<void>;
}

export interface EgressJournal {
  /** Appends an entry and resolves once the stream acknowledged it (before the command runs). */
  append(entry: EgressEntry): Promise<void>;
}

export interface EgressEntry {
  session: string;
  run: string;
  call_id: string;
  approval: string;
  command: string;
  tokens: string[];
  consented_at: string;
  user: string;
}
