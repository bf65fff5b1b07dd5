import { z } from "zod";
import { AutoApproveSchema, ChatMessageSchema, EditFormatSchema, ExperimentSettingsSchema, ModeSchema, PausedSchema, RunStateSchema, ToolPreviewSchema } from "@aide/contracts";

export const PlanItemSchema = z.object({ step: z.string(), status: z.enum(["pending", "in_progress", "completed"]) });
export type PlanItem = z.infer<typeof PlanItemSchema>;

/** A pending approval, durable: after a restart it is offered again under the same id. */
export const ApprovalRecordSchema = z.object({
  id: z.string(),
  run: z.string(),
  call_id: z.string(),
  tool: z.string(),
  args_digest: z.string(),
  requested_at: z.string(),
  expires_at: z.string(),
  network: z.enum(["none", "consent_required", "forbidden"]),
  network_tokens: z.array(z.string()).default([]),
  needs_protected_confirmation: z.boolean(),
  preview: ToolPreviewSchema,
  /** The payload of `approval.requested` (without the envelope), re-published on resume. */
  event_payload: z.record(z.string(), z.unknown()),
  depth: z.number().int().nonnegative().default(0),
  /** Set on the approval that asks what to do when no checkpoint could be taken before the call. */
  checkpoint_failure: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>;

/**
 * An approval that is no longer pending, kept (the newest ones, see `settled-approvals.ts`) so a
 * late decision is told why it no longer applies instead of "not found".
 */
export const SettledApprovalSchema = z.object({
  id: z.string(),
  run: z.string(),
  decision: z.enum(["approve", "reject", "abort", "timeout"]),
  /**
   * `person`: a decision; `timeout`: nobody decided in time; `run_end`: the run ended while it
   * waited; `policy`: refused at once by the session's `auto_approve.deny_unmatched`.
   */
  settled_by: z.enum(["person", "timeout", "run_end", "policy"]),
  settled_at: z.string(),
  expires_at: z.string(),
});
export type SettledApproval = z.infer<typeof SettledApprovalSchema>;

export const CallOutcomeSchema = z.object({
  is_error: z.boolean(),
  output: z.string(),
  metadata: z.record(z.string(), z.unknown()).default({}),
  changed_paths: z.array(z.string()).default([]),
  notices: z.array(z.string()).default([]),
});
export type CallOutcome = z.infer<typeof CallOutcomeSchema>;

/**
 * One call of the current model response. `status` is persisted before every step so a restart
 * knows whether a call never ran, waits for a person, or was in flight (outcome unknown).
 */
export const BatchCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  status: z.enum(["queued", "awaiting_approval", "approved", "executing", "done"]),
  approval: z.string().optional(),
  network: z.boolean().default(false),
  expected_digests: z.record(z.string(), z.string()).optional(),
  outcome: CallOutcomeSchema.optional(),
  /** Native tool-call id when the model used native function calling. */
  native_id: z.string().optional(),
});
export type BatchCall = z.infer<typeof BatchCallSchema>;

export const ToolLogEntrySchema = z.object({
  seq: z.number().int(),
  tool: z.string(),
  is_error: z.boolean(),
  args: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()).default({}),
  output: z.string(),
  changed_paths: z.array(z.string()).default([]),
});
export type ToolLogEntry = z.infer<typeof ToolLogEntrySchema>;

/**
 * An event emitted but not yet acknowledged by the stream, kept with the record so that a state
 * change and its event are durable together: whoever resumes the session republishes it (same
 * message id, so the stream drops a copy it already has).
 */
export const OutboxEntrySchema = z.object({ seq: z.number().int().positive(), subject: z.string(), event: z.record(z.string(), z.unknown()) });
export type OutboxEntry = z.infer<typeof OutboxEntrySchema>;

export const SessionRecordSchema = z.object({
  id: z.string(),
  user: z.string(),
  workspace: z.string(),
  mode: ModeSchema,
  state: RunStateSchema,
  run: z.string().optional(),
  task: z.string(),
  model: z.string(),
  /** The model that answered the last turn (what `model` resolved to when it was "", the service's default). */
  served_model: z.string().optional(),
  iterations: z.number().int().nonnegative(),
  max_iterations: z.number().int().positive(),
  last_seq: z.number().int().nonnegative(),
  created_at: z.string(),
  updated_at: z.string(),
  run_started_at: z.string().optional(),
  /** When the last run ended (its terminal event), cleared when the next one starts. */
  run_ended_at: z.string().optional(),
  result: z.string().optional(),
  /** The last run's `run.failed` error, cleared when the next one starts. */
  failure: z.object({ code: z.string(), message: z.string() }).optional(),
  /** The evidence of the last run that ended `done` (what `run.completed` carried). */
  evidence: z.array(z.string()).optional(),
  /** What the evidence gate found missing when the last run ended `unverified`. */
  evidence_missing: z.array(z.string()).optional(),
  auto_approve: AutoApproveSchema,
  /** The current run's approval timeout (`approval_timeout_seconds` of its start); absent, the orchestrator's default. */
  approval_timeout_ms: z.number().int().positive().optional(),
  /** The current run's experiment settings (its start's `experiment`, an eval arm). */
  experiment: ExperimentSettingsSchema.optional(),
  /** The edit format of the run's model (its registry entry), resolved at the start; the start's own setting wins. */
  model_edit_format: EditFormatSchema.optional(),
  system: z.string().optional(),
  /** The current run's `--trust-instructions` (its start's `trust_instructions`). */
  trust_instructions: z.boolean().optional(),
  /**
   * The current run's project instructions once consent was settled: the prompt block (empty: none)
   * and the folders already looked at, so a restart keeps the same prefix and asks nothing again.
   */
  instructions: z.object({ block: z.string(), folders: z.array(z.string()).default([]) }).optional(),
  transcript: z.array(ChatMessageSchema),
  plan: z.array(PlanItemSchema).default([]),
  batch: z.array(BatchCallSchema).default([]),
  approvals: z.array(ApprovalRecordSchema).default([]),
  settled_approvals: z.array(SettledApprovalSchema).default([]),
  tool_log: z.array(ToolLogEntrySchema).default([]),
  counters: z
    .object({
      nudges: z.number().int().default(0),
      mistakes: z.number().int().default(0),
      completion_attempts: z.number().int().default(0),
      commands_run: z.number().int().default(0),
      compactions: z.number().int().default(0),
      stall_warnings: z.number().int().default(0),
    })
    .default({ nudges: 0, mistakes: 0, completion_attempts: 0, commands_run: 0, compactions: 0, stall_warnings: 0 }),
  /** Set once the run's first pre-mutation checkpoint exists. */
  checkpointed: z.boolean().default(false),
  checkpoints: z.array(z.string()).default([]),
  files_changed: z.array(z.string()).default([]),
  automation_writes: z.array(z.string()).default([]),
  /** A mode notice to put into the next user-side message (Plan/Act switch). */
  pending_mode_notice: ModeSchema.optional(),
  /** The orchestrator instance running the session, and until when its lease holds. */
  owner: z.string().optional(),
  lease_until: z.string().optional(),
  /** Messages from the person received while the run was busy; appended before the next model turn. */
  inbox: z.array(z.string()).default([]),
  /** Events not yet acknowledged by the event stream, oldest first (see `OutboxEntrySchema`). */
  outbox: z.array(OutboxEntrySchema).default([]),
  /** Set while the run waits for its store or for disk space; the status shows the run as `paused`. */
  paused: PausedSchema.optional(),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

export const terminalStates = new Set(["done", "unverified", "error", "aborted", "idle"]);
export function isActive(state: SessionRecord["state"]): boolean {
  return state === "running" || state === "awaiting_approval" || state === "paused";
}

/** A session a sweep must look at: its run is active, or events of it still wait for the stream. */
export function isLive(record: Pick<SessionRecord, "state" | "outbox">): boolean {
  return isActive(record.state) || record.outbox.length > 0;
}

export const emptyCounters = (): SessionRecord["counters"] => ({ nudges: 0, mistakes: 0, completion_attempts: 0, commands_run: 0, compactions: 0, stall_warnings: 0 });

/** A session with no run yet: the one place its empty state is spelled out. */
export function newSessionRecord(fields: Pick<SessionRecord, "id" | "user" | "workspace" | "mode" | "task" | "max_iterations">, now: string): SessionRecord {
  return {
    ...fields,
    state: "idle",
    model: "",
    iterations: 0,
    last_seq: 0,
    created_at: now,
    updated_at: now,
    auto_approve: { edits: false, commands: [] },
    transcript: [],
    plan: [],
    batch: [],
    approvals: [],
    settled_approvals: [],
    tool_log: [],
    counters: emptyCounters(),
    checkpointed: false,
    checkpoints: [],
    files_changed: [],
    automation_writes: [],
    inbox: [],
    outbox: [],
  };
}
