import { z } from "zod";
import { AutoApproveSchema, ModeSchema, PauseReasonSchema, RunStateSchema } from "./commands.js";
import { CommandAlternativeSchema, InvisibleFlagSchema, ProtectedFlagSchema } from "./tools.js";
import { ErrorBodySchema } from "./errors.js";
import { MemorySummarySchema } from "./memory.js";
import { RunExperimentSchema } from "./experiment-settings.js";
import { settingDefaults } from "./setting-table.js";
import { ModelProbeProgressSchema } from "./probe-progress.js";
import { InstructionsAnswerSchema, InstructionsApprovalSchema, InstructionsLoadedPayloadSchema, InstructionsSkippedPayloadSchema } from "./instructions.js";

/** Experiment identifiers: change them when behaviour changes in a way that affects evaluation. */
export const experiment = {
  strategy: "agent-loop-v3",
  scheduler: settingDefaults.scheduler,
  context_policy: settingDefaults.context_policy,
} as const;

const envelope = {
  session: z.string(),
  run: z.string(),
  /** Per-session, contiguous from 1. */
  seq: z.number().int().positive(),
  ts: z.string(),
  user: z.string(),
  depth: z.number().int().nonnegative().default(0),
  strategy: z.string(),
  scheduler: z.string(),
  context_policy: z.string(),
};

function event<T extends string, P extends z.ZodTypeAny>(type: T, payload: P) {
  return z.object({ ...envelope, type: z.literal(type), payload });
}

/** What a screen rendering replaced: all kinds together, and by kind (`UntrustedCharacterKind`). */
export const EscapesSchema = z.object({
  count: z.number().int().nonnegative(),
  kinds: z.record(z.string(), z.number().int().nonnegative()).default({}),
});

/** Base64 (of UTF-8) of an approval's raw fields; no generic viewer prints raw bytes from it. */
export const ApprovalRawSchema = z.object({
  command: z.base64().optional(),
  diff: z.base64().optional(),
  paths: z.array(z.base64()).optional(),
  args_json: z.base64().optional(),
});
export type ApprovalRaw = z.infer<typeof ApprovalRawSchema>;

const ToolCallSummary = z.object({
  call_id: z.string(),
  tool: z.string(),
  /** Public arguments only: write bodies and patches are replaced by their size and digest. */
  args: z.record(z.string(), z.unknown()),
  /** The MCP server that runs the tool (tools named `mcp__<server>__<tool>`). */
  server: z.string().optional(),
});

export const RunCreatedEvent = event(
  "run.created",
  z.object({
    task: z.string(),
    mode: ModeSchema,
    workspace: z.string(),
    model: z.string(),
    unsandboxed_services: z.boolean().default(false),
    /** The run's experiment identifiers and the settings its start asked for (an eval arm). */
    experiment: RunExperimentSchema.optional(),
  }),
);
/** A state change of the run; `paused` carries why (and the next `run.state` says it resumed). */
export const RunStateEvent = event("run.state", z.object({ state: RunStateSchema, reason: PauseReasonSchema.optional(), detail: z.string().optional() }));
export const ContextBuiltEvent = event(
  "context.built",
  z.object({
    messages: z.number().int().nonnegative(),
    dropped: z.number().int().nonnegative(),
    chars: z.number().int().nonnegative(),
    compacted: z.boolean().default(false),
    tools: z.array(z.string()),
    /** The prompt tier (compact for windows up to 8k tokens) and the model window it was built for. */
    tier: z.enum(["compact", "full"]).optional(),
    window_tokens: z.number().int().positive().optional(),
    /** The code map's size (the tools' estimate) when the first turn's stable prefix carries one (AIDE_CODE_MAP_IN_PREFIX=1). */
    code_map_tokens: z.number().int().nonnegative().optional(),
    /** The characters of the test output block when the prefix carries one (prefix_failing_output). */
    failing_output_chars: z.number().int().nonnegative().optional(),
    /** The entries of the workspace listing when the prefix carries one (workspace_files). */
    workspace_entries: z.number().int().nonnegative().optional(),
  }),
);
export const ModelRequestedEvent = event(
  "model.requested",
  z.object({
    request_id: z.string(),
    model: z.string(),
    iteration: z.number().int(),
    /** Tools the local model's grammar left out this turn (the completion_grammar strategy); absent: none. */
    grammar_excluded: z.array(z.string()).optional(),
  }),
);
export const ModelDeltaEvent = event("model.delta", z.object({ request_id: z.string(), text: z.string() }));
export const ModelRespondedEvent = event(
  "model.responded",
  z.object({
    request_id: z.string(),
    text: z.string(),
    tool_calls: z.number().int().nonnegative(),
    finish_reason: z.string(),
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
    duration_ms: z.number().nonnegative(),
    /**
     * Prompt tokens reused from the model's KV cache (prompt_tokens minus those evaluated); absent
     * when the provider does not say (a remote server that reports no cache figures).
     */
    cached_prompt_tokens: z.number().int().nonnegative().optional(),
    /** The model that answered (the model service's id; its default when the run named none). */
    model: z.string().optional(),
    /** Prompt tokens the model service evaluated (the rest came from its KV cache), when it says. */
    evaluated_prompt_tokens: z.number().int().nonnegative().optional(),
    /**
     * Problems parsing the reply's calls (an unknown tool, an unclosed block, a missing parameter):
     * a reply that tried to call and could not (the eval's well-formed-call rate). Absent: none.
     */
    call_errors: z.number().int().positive().optional(),
    /**
     * The reply stopped at the output limit (`finish_reason: "length"`) inside a call: the tool,
     * the parameter that was open (absent when the cut fell between parameters) and the limit in
     * tokens. The model is told the same and what to send instead. Absent: no call was cut.
     */
    cut: z.object({ tool: z.string(), parameter: z.string().optional(), limit_tokens: z.number().int().nonnegative() }).optional(),
  }),
);
export const ToolStartedEvent = event("tool.started", ToolCallSummary);
export const ToolCompletedEvent = event(
  "tool.completed",
  ToolCallSummary.extend({
    is_error: z.boolean(),
    summary: z.string(),
    duration_ms: z.number().nonnegative(),
    metadata: z.record(z.string(), z.unknown()).default({}),
    /** The output's first lines for a screen (secrets redacted like the summary; cut at 200 lines / 16,000 characters); absent for a withheld secret read. */
    output_preview: z.string().optional(),
    /** How many lines the whole output has (the preview may hold fewer). */
    output_lines: z.number().int().nonnegative().optional(),
    /**
     * The call was never started because of what happened before it in the same model message:
     * the person rejected an earlier call (`earlier_call_rejected`), the run ended (an accepted
     * completion, `run_ended`) or was aborted (`run_aborted`). Absent: the call was handled itself.
     */
    skipped: z.enum(["earlier_call_rejected", "run_ended", "run_aborted"]).optional(),
  }),
);
export const ToolBatchLimitedEvent = event("tool.batch_limited", z.object({ requested: z.number().int(), executed: z.number().int() }));
export const ApprovalRequestedEvent = event(
  "approval.requested",
  z.object({
    approval: z.string(),
    call_id: z.string(),
    tool: z.string(),
    args: z.record(z.string(), z.unknown()),
    diff: z.string().optional(),
    command: z.string().optional(),
    paths: z.array(z.string()).default([]),
    protected: z.array(ProtectedFlagSchema).default([]),
    invisible: z.array(InvisibleFlagSchema).default([]),
    network: z.enum(["none", "consent_required", "forbidden"]).default("none"),
    args_digest: z.string(),
    expires_at: z.string(),
    /** The model's own hint: display only, never authorization. */
    model_hint: z.string().optional(),
    /**
     * Set when the checkpoint before this mutation could not be taken: the call (auto-approved or
     * already approved) waits for the person to retry, proceed without a checkpoint, or stop.
     */
    checkpoint_failed: z.object({ code: z.string(), message: z.string() }).optional(),
    /**
     * What the screen renderings (`renderUntrusted`) of the fields above replaced: every string of
     * this payload, like every event's, carries only visible tokens (`⟨ESC⟩`, `⟨U+202E⟩`).
     */
    escapes: EscapesSchema.optional(),
    /**
     * The exact bytes behind `command`, `diff`, `paths` and `args`, base64 of their UTF-8 (`args`
     * as JSON), each present only when its screen form differs: what runs is the decoded raw, what
     * the person saw is its rendering, and `renderUntrusted(raw) === shown` always holds.
     */
    raw_base64: ApprovalRawSchema.optional(),
    /**
     * What is being approved when it is not an ordinary tool call: `memory` (remember/forget: the
     * text outlives the session), `secret_read` (reading a secret-looking file), `mode_switch`,
     * `instructions` (a project instructions file: trust, not this time, or never).
     */
    kind: z.enum(["tool", "memory", "secret_read", "mode_switch", "instructions"]).optional(),
    /** For `kind: instructions`: the file as the person sees it (rendered), its size, digest and budget. */
    instructions: InstructionsApprovalSchema.optional(),
    /** For `kind: memory`: the memory's raw text (clients render it as untrusted text). */
    memory: z.object({ action: z.enum(["remember", "forget"]), id: z.string().optional(), text: z.string() }).optional(),
    /** An MCP tool call: the server, the tool's own name, and the exact arguments as JSON (raw; clients render it). */
    mcp: z
      .object({
        server: z.string(),
        tool: z.string(),
        arguments_json: z.string(),
        /** The server's tool descriptions and schemas held this many invisible or control characters (tool poisoning): shown loudly. */
        hidden_characters: z.number().int().positive().optional(),
      })
      .optional(),
    /** Workspace-defined code the command runs by design (package scripts, make recipes…), as the preview read it. */
    scripts: z.array(z.object({ source: z.string(), name: z.string(), text: z.string() })).optional(),
    /** The digest of those scripts (whole texts): a rule `<command> sha256:<digest>` allows the command while they stay as shown. */
    scripts_digest: z.string().optional(),
    /**
     * A package install's other form: the same command with `--ignore-scripts` (npm, pnpm, Yarn 1),
     * which the person may approve instead (the decision's `alternative`), and the allow rule for it.
     */
    alternative: CommandAlternativeSchema.optional(),
  }),
);
export const ApprovalDecidedEvent = event(
  "approval.decided",
  z.object({
    approval: z.string(),
    decision: z.enum(["approve", "reject", "abort", "timeout", "auto"]),
    feedback: z.string().optional(),
    /** For a `checkpoint_failed` approval: what the person chose. */
    checkpoint: z.enum(["retry", "proceed_without"]).optional(),
    /** For a command the policy marked `consent_required`: whether the person granted network. */
    network: z.boolean().optional(),
    /** For a `kind: instructions` approval: the answer (trust, not this time, never). */
    instructions_answer: InstructionsAnswerSchema.optional(),
    /** The person approved the approval's alternative (`ignore_scripts`): what runs is its command, not the one proposed. */
    alternative: z.object({ id: z.literal("ignore_scripts"), command: z.string() }).optional(),
  }),
);
export const CheckpointCreatedEvent = event(
  "checkpoint.created",
  z.object({ checkpoint: z.string(), label: z.string(), files_changed: z.number().int().nonnegative(), duration_ms: z.number().nonnegative() }),
);
export const CheckpointFailedEvent = event("checkpoint.failed", z.object({ error: ErrorBodySchema }));
export const CheckpointRestoredEvent = event("checkpoint.restored", z.object({ checkpoint: z.string(), mode: z.string(), truncated_messages: z.number().int().nonnegative() }));
/** A completion claim no event of the run backs: the quoted claim and what the events show instead. */
export const UnbackedClaimSchema = z.object({
  /** `answer`: a name or number an answer to a question about the workspace states that nothing the run read or ran contains. */
  kind: z.enum(["command", "tests_pass", "count", "exit_code", "file_changed", "answer"]),
  quote: z.string(),
  events_show: z.string(),
});
export type UnbackedClaim = z.infer<typeof UnbackedClaimSchema>;
export const CompletionRejectedEvent = event(
  "completion.rejected",
  z.object({
    missing: z.array(z.string()),
    instruction: z.string(),
    attempt: z.number().int().positive(),
    claims: z.array(UnbackedClaimSchema).optional(),
  }),
);
export const CompletionUnverifiedEvent = event("completion.unverified", z.object({ missing: z.array(z.string()), result: z.string(), claims: z.array(UnbackedClaimSchema).optional() }));
export const AgentSpawnedEvent = event("agent.spawned", z.object({ child_run: z.string(), role: z.string(), task: z.string(), write: z.boolean() }));
export const AgentCompletedEvent = event("agent.completed", z.object({ child_run: z.string(), state: RunStateSchema, result: z.string() }));
export const MessageReceivedEvent = event("message.received", z.object({ text: z.string() }));
export const ModeChangedEvent = event("mode.changed", z.object({ mode: ModeSchema }));
/** The first use of a model waits on its capability probe: how far it is (the model service's progress, forwarded). */
export const ModelProbingEvent = event("model.probing", ModelProbeProgressSchema);
/** A person changed the session's auto-approve rules mid-session (`agent.cmd.auto_approve`): the rules now in force. */
export const SessionAutoApproveChangedEvent = event("session.auto_approve_changed", z.object({ auto_approve: AutoApproveSchema }));
export const PlanUpdatedEvent = event("plan.updated", z.object({ items: z.array(z.object({ step: z.string(), status: z.enum(["pending", "in_progress", "completed"]) })) }));
/**
 * At the start of a run that gives memories to the model: which ones, who wrote them, and where
 * they came from, so the person sees what an earlier agent run left for this one.
 */
export const MemoryLoadedEvent = event("memory.loaded", z.object({ memories: z.array(MemorySummarySchema) }));
/** Project instructions in this run's prompt, once per run after consent (instructions.ts). */
export const InstructionsLoadedEvent = event("instructions.loaded", InstructionsLoadedPayloadSchema);
/** Project instructions found but not loaded: answered never / not this time, or ignored by policy. */
export const InstructionsSkippedEvent = event("instructions.skipped", InstructionsSkippedPayloadSchema);
export const RunCompletedEvent = event(
  "run.completed",
  z.object({
    state: z.enum(["done", "unverified"]),
    result: z.string(),
    iterations: z.number().int().nonnegative(),
    files_changed: z.array(z.string()).default([]),
    commands_run: z.number().int().nonnegative().default(0),
    checkpoints: z.array(z.string()).default([]),
    automation_writes: z.array(z.string()).default([]),
    evidence: z.array(z.string()).default([]),
  }),
);
export const RunFailedEvent = event("run.failed", z.object({ error: ErrorBodySchema, iterations: z.number().int().nonnegative() }));
export const RunCancelledEvent = event("run.cancelled", z.object({ reason: z.string() }));

export const AgentEventSchema = z.discriminatedUnion("type", [
  RunCreatedEvent,
  RunStateEvent,
  ContextBuiltEvent,
  ModelRequestedEvent,
  ModelDeltaEvent,
  ModelRespondedEvent,
  ToolStartedEvent,
  ToolCompletedEvent,
  ToolBatchLimitedEvent,
  ApprovalRequestedEvent,
  ApprovalDecidedEvent,
  CheckpointCreatedEvent,
  CheckpointFailedEvent,
  CheckpointRestoredEvent,
  CompletionRejectedEvent,
  CompletionUnverifiedEvent,
  AgentSpawnedEvent,
  AgentCompletedEvent,
  MessageReceivedEvent,
  ModeChangedEvent,
  SessionAutoApproveChangedEvent,
  ModelProbingEvent,
  PlanUpdatedEvent,
  MemoryLoadedEvent,
  InstructionsLoadedEvent,
  InstructionsSkippedEvent,
  RunCompletedEvent,
  RunFailedEvent,
  RunCancelledEvent,
]);
export type AgentEvent = z.infer<typeof AgentEventSchema>;
export type AgentEventType = AgentEvent["type"];
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
export type AgentEventPayload<T extends AgentEventType> = AgentEventOf<T>["payload"];

export const terminalEventTypes = ["run.completed", "run.failed", "run.cancelled"] as const;
