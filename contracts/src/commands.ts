import { z } from "zod";
import { IdSchema, replySchema } from "./reply.js";
import { RestoreModeSchema, RestorePlanSchema } from "./checkpoints.js";
import { ExperimentSettingsSchema } from "./experiment-settings.js";
import { InstructionsAnswerSchema } from "./instructions.js";

export const ModeSchema = z.enum(["plan", "act"]);
export type Mode = z.infer<typeof ModeSchema>;

export const RunStateSchema = z.enum([
  "idle",
  "running",
  "awaiting_approval",
  /** The run waits for its durable store (or disk space) to come back; it resumes by itself, nothing re-run. */
  "paused",
  "done",
  "unverified",
  "error",
  "aborted",
]);
export type RunState = z.infer<typeof RunStateSchema>;

/** Why a run is `paused`: its session store stays away (`store_unavailable`) or a disk is full (`disk_full`). */
export const PauseReasonSchema = z.enum(["store_unavailable", "disk_full"]);
export type PauseReason = z.infer<typeof PauseReasonSchema>;
export const PausedSchema = z.object({ reason: PauseReasonSchema, detail: z.string(), since: z.string() });

export const AutoApproveSchema = z.object({
  /** Read-only tools never need approval; listed for completeness of the UI. */
  edits: z.boolean().default(false),
  /**
   * Command prefixes (argv[0] or "argv0 argv1") that run without asking. A command that runs
   * workspace-defined code (`workspaceScriptOf`) needs a rule naming its script with the digest of
   * the script text shown: `npm test sha256:<scripts_digest>` (`parseCommandRule`).
   */
  commands: z.array(z.string().min(1).max(200)).max(100).default([]),
  /**
   * `remember` / `forget` run without asking. Memories outlive the session and are given to later
   * runs, so they are mutations: no other rule (not `edits`, not the read-only pass) implies this one.
   * Absent means false.
   */
  memory: z.boolean().optional(),
  /**
   * Every write and every command runs without asking, as if `edits` were set and every command
   * had a rule naming it (workspace scripts included). Never protected paths, invisible
   * characters, network use, secret-file reads or memory: those keep their own rules. Absent means false.
   */
  all: z.boolean().optional(),
  /**
   * Whatever no rule covers is refused at once (a reject with feedback saying so) instead of
   * waiting for a person: for headless runs (`aide run --deny-rest`). Absent means false.
   */
  deny_unmatched: z.boolean().optional(),
});
export type AutoApprove = z.infer<typeof AutoApproveSchema>;

export const StartRequestSchema = z.object({
  task: z.string().min(1).max(100_000),
  mode: ModeSchema.default("act"),
  workspace: z.string().min(1).max(4096),
  model: z.string().min(1).max(128).optional(),
  /** Continue an existing session with a new run. */
  session: IdSchema.optional(),
  user: IdSchema.default("local"),
  auto_approve: AutoApproveSchema.optional(),
  max_iterations: z.number().int().positive().max(200).optional(),
  /** How long each approval of this run waits before it is denied; absent, the orchestrator's default (10 minutes). */
  approval_timeout_seconds: z.number().int().positive().max(86_400).optional(),
  /** Start even when another session runs in the same workspace (else WORKSPACE_BUSY). */
  allow_concurrent: z.boolean().optional(),
  /** This run's experiment settings (an eval arm): prompt tier, grammar, context policy, edit format, scheduler. */
  experiment: ExperimentSettingsSchema.optional(),
  /** Trust the project instructions found, for this run only (`aide run --trust-instructions`): loaded with source `flag`, nothing stored. */
  trust_instructions: z.boolean().optional(),
});
export type StartRequest = z.infer<typeof StartRequestSchema>;
export const StartResultSchema = z.object({ session: IdSchema, run: IdSchema, state: RunStateSchema });
export const StartReplySchema = replySchema(StartResultSchema);

export const DecisionSchema = z.enum(["approve", "reject", "abort"]);
export const DecisionRequestSchema = z.object({
  session: IdSchema,
  approval: IdSchema,
  decision: DecisionSchema,
  feedback: z.string().max(20_000).optional(),
  /** Required to approve a protected path: the person names the risk. */
  confirm_protected: z.boolean().optional(),
  /**
   * Required to run a command the policy marked CONSENT_REQUIRED with network on; absent or false,
   * an approved command runs without network (clients offer both answers; a plain approve is false).
   */
  consent_network: z.boolean().optional(),
  /**
   * Required to approve an approval that says no checkpoint could be taken (`checkpoint_failed`):
   * `retry` takes the checkpoint again (and asks again if it fails), `proceed_without` runs the
   * mutation without one. Reject or abort stops it.
   */
  checkpoint: z.enum(["retry", "proceed_without"]).optional(),
  /**
   * With `approve` of a command that runs workspace scripts (the approval has `scripts_digest`):
   * also allow it for the rest of the session while its scripts stay as shown (the rule
   * `<command> sha256:<scripts_digest>` is added to the session's `auto_approve.commands`).
   */
  allow_script: z.boolean().optional(),
  /**
   * With `approve` of an approval that offers an `alternative` (a package install's
   * `--ignore-scripts` form): run that form instead of the command proposed. With `allow_script`,
   * the alternative's rule (no digest: it runs no workspace code) is what is added.
   */
  alternative: z.literal("ignore_scripts").optional(),
  /**
   * For a `kind: instructions` approval: `approve` trusts (absent or `trust`); `reject` is not this
   * time unless this is `never` (remembered for the file's digest).
   */
  instructions_answer: InstructionsAnswerSchema.optional(),
});
export type DecisionRequest = z.infer<typeof DecisionRequestSchema>;
export const DecisionReplySchema = replySchema(z.object({ accepted: z.boolean(), state: RunStateSchema }));

export const SessionRequestSchema = z.object({ session: IdSchema });
export const AbortRequestSchema = z.object({ session: IdSchema, reason: z.string().max(2000).optional() });
export const AbortReplySchema = replySchema(z.object({ state: RunStateSchema }));

export const MessageRequestSchema = z.object({ session: IdSchema, text: z.string().min(1).max(100_000) });
export const MessageReplySchema = replySchema(z.object({ run: IdSchema, state: RunStateSchema }));

export const ModeRequestSchema = z.object({ session: IdSchema, mode: ModeSchema });
/** The mode now, and `seq`: the session's event seq it is current at (as for the auto-approve reply: a client also following `mode.changed` keeps the newer). */
export const ModeReplySchema = replySchema(z.object({ mode: ModeSchema, seq: z.number().int().nonnegative().optional() }));

/** How a run ended, for lists and the finished-run view: `done`, `unverified`, `error` (with the code and message), `aborted`. */
export const RunOutcomeSummarySchema = z.object({
  state: z.enum(["done", "unverified", "error", "aborted"]),
  /** The completion's result (done/unverified), the failure's message, or the abort's reason. */
  result: z.string().optional(),
  /** For `error`: the catalog code (ITERATION_LIMIT, MODEL_FAILED, …) and message of `run.failed`. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** For `unverified`: what the evidence gate found missing (as `completion.unverified` said). */
  missing: z.array(z.string()).optional(),
});
export type RunOutcomeSummary = z.infer<typeof RunOutcomeSummarySchema>;

export const PendingApprovalSchema = z.object({
  id: IdSchema,
  call_id: z.string(),
  tool: z.string(),
  requested_at: z.string(),
  expires_at: z.string(),
});
export const SessionSnapshotSchema = z.object({
  id: IdSchema,
  user: IdSchema,
  workspace: z.string(),
  mode: ModeSchema,
  state: RunStateSchema,
  run: z.string().optional(),
  task: z.string(),
  iterations: z.number().int().nonnegative(),
  last_seq: z.number().int().nonnegative(),
  approvals_pending: z.array(PendingApprovalSchema),
  created_at: z.string(),
  updated_at: z.string(),
  result: z.string().optional(),
  /** Set while `state` is `paused`: why, and since when. */
  paused: PausedSchema.optional(),
  /** The task's first line, at most 200 characters (for lists). */
  task_title: z.string().optional(),
  /** The model of the current (or last) run: the one it named, else the one that answered (the service's default); "" before any answer. */
  model: z.string().optional(),
  /** When the current (or last) run started and, once it ended, when it ended and how long it took. */
  run_started_at: z.string().optional(),
  run_ended_at: z.string().optional(),
  duration_ms: z.number().nonnegative().optional(),
  /** How the last run ended (absent while one runs, or before the first). */
  outcome: RunOutcomeSummarySchema.optional(),
  /** Workspace paths the current (or last) run changed. */
  files_changed: z.array(z.string()).optional(),
  /** The evidence gate's verdict of the last run that ended `done`: the events that back the completion. */
  evidence: z.array(z.string()).optional(),
  /** The session's auto-approve rules now in force (changed with `agent.cmd.auto_approve`). */
  auto_approve: AutoApproveSchema.optional(),
});
export type SessionSnapshot = z.infer<typeof SessionSnapshotSchema>;
export const StatusReplySchema = replySchema(SessionSnapshotSchema);

export const SessionsRequestSchema = z.object({
  user: IdSchema.optional(),
  limit: z.number().int().positive().max(500).default(100),
  /** Only sessions in this state (the snapshot's state: `paused` for a paused run). */
  state: RunStateSchema.optional(),
  /** Only sessions of this workspace (its absolute path, as the snapshot names it). */
  workspace: z.string().min(1).max(4096).optional(),
  /** Only sessions whose task, workspace, id or result contains this text (case-insensitive). */
  query: z.string().min(1).max(200).optional(),
  /** Skip this many of the matching sessions (newest first): the next page starts at offset + limit. */
  offset: z.number().int().nonnegative().default(0),
});
export const SessionsReplySchema = replySchema(
  z.object({
    sessions: z.array(SessionSnapshotSchema),
    /** How many sessions match the filters (all pages). */
    total: z.number().int().nonnegative().optional(),
  }),
);

export const RestoreRequestSchema = z.object({
  session: IdSchema,
  checkpoint: z.string().regex(/^[0-9a-f]{40}$/),
  mode: RestoreModeSchema.default("files_and_task"),
  dry_run: z.boolean().default(true),
  force: z.boolean().default(false),
});
export type RestoreRequest = z.infer<typeof RestoreRequestSchema>;
export const RestoreReplySchema = replySchema(z.object({ plan: RestorePlanSchema, applied: z.boolean(), truncated_messages: z.number().int().nonnegative() }));
