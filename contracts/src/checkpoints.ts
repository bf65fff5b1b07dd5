import { z } from "zod";
import { IdSchema, replySchema } from "./reply.js";

const Workspace = z.string().min(1).max(4096);
const CommitId = z.string().regex(/^[0-9a-f]{40}$/, "must be a 40-hex commit id");

export const CheckpointSchema = z.object({
  id: CommitId,
  session: IdSchema,
  run: z.string().optional(),
  /** Index of the transcript message this checkpoint follows (for task restore). */
  message_index: z.number().int().nonnegative().optional(),
  label: z.string(),
  created_at: z.string(),
  files_changed: z.number().int().nonnegative(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

export const CheckpointCommitRequestSchema = z.object({
  workspace: Workspace,
  session: IdSchema,
  run: z.string().optional(),
  message_index: z.number().int().nonnegative().optional(),
  label: z.string().max(500).default("checkpoint"),
  /** Workspace-relative paths known to have changed; lets the service skip the walk. */
  changed_paths: z.array(z.string()).optional(),
  timeout_ms: z.number().int().positive().max(600_000).optional(),
});
export type CheckpointCommitRequest = z.infer<typeof CheckpointCommitRequestSchema>;
export const CheckpointCommitResultSchema = z.object({
  checkpoint: CheckpointSchema,
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })).default([]),
  duration_ms: z.number().nonnegative(),
});
export const CheckpointCommitReplySchema = replySchema(CheckpointCommitResultSchema);

export const RestoreModeSchema = z.enum(["files_and_task", "files", "task"]);
export type RestoreMode = z.infer<typeof RestoreModeSchema>;

export const CheckpointRestoreRequestSchema = z.object({
  workspace: Workspace,
  session: IdSchema,
  checkpoint: CommitId,
  mode: RestoreModeSchema.default("files_and_task"),
  dry_run: z.boolean().default(false),
  force: z.boolean().default(false),
});
export type CheckpointRestoreRequest = z.infer<typeof CheckpointRestoreRequestSchema>;
export const RestorePlanSchema = z.object({
  modified: z.array(z.string()),
  created_since: z.array(z.string()),
  deleted_since: z.array(z.string()),
});
export const CheckpointRestoreResultSchema = z.object({
  checkpoint: CheckpointSchema,
  plan: RestorePlanSchema,
  applied: z.boolean(),
  safety_checkpoint: z.string().optional(),
  /** The working tree differed from the latest checkpoint (a real restore then needs force). */
  workspace_changed: z.boolean().optional(),
});
export const CheckpointRestoreReplySchema = replySchema(CheckpointRestoreResultSchema);

export const CheckpointListRequestSchema = z.object({ workspace: Workspace, session: IdSchema.optional() });
export type CheckpointListRequest = z.infer<typeof CheckpointListRequestSchema>;
export const CheckpointListReplySchema = replySchema(
  z.object({
    checkpoints: z.array(CheckpointSchema),
    /** Older checkpoints left out to keep the reply under the bus limit (the newest are listed). */
    omitted: z.number().int().nonnegative().optional(),
  }),
);

export const CheckpointDiffRequestSchema = z.object({
  workspace: Workspace,
  from: CommitId,
  /** Omitted: the working tree. */
  to: CommitId.optional(),
});
export type CheckpointDiffRequest = z.infer<typeof CheckpointDiffRequestSchema>;
export const FileDiffSchema = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  binary: z.boolean(),
  diff: z.string().optional(),
  /** The unified diff was left out or cut to keep the reply under the bus limit. */
  truncated: z.boolean().optional(),
});
export type FileDiff = z.infer<typeof FileDiffSchema>;
export const CheckpointDiffResultSchema = z.object({
  files: z.array(FileDiffSchema),
  /** Changed files left out of `files` to keep the reply under the bus limit. */
  omitted: z.number().int().nonnegative().optional(),
});
export const CheckpointDiffReplySchema = replySchema(CheckpointDiffResultSchema);

export const CheckpointPruneRequestSchema = z.object({
  workspace: Workspace,
  keep_tasks: z.number().int().positive().optional(),
  /** With delete_session: that session's checkpoints are deleted; otherwise keep_tasks counts only its tasks. */
  session: IdSchema.optional(),
  /** Delete every checkpoint of `session` (when the session is deleted). */
  delete_session: z.boolean().default(false),
});
export type CheckpointPruneRequest = z.infer<typeof CheckpointPruneRequestSchema>;
export const CheckpointUsageRequestSchema = z.object({ workspace: Workspace });
export type CheckpointUsageRequest = z.infer<typeof CheckpointUsageRequestSchema>;
export const CheckpointUsageSchema = z.object({
  /** Disk space the shadow repository takes (allocated blocks). */
  bytes: z.number().int().nonnegative(),
  checkpoints: z.number().int().nonnegative(),
  packs: z.number().int().nonnegative().optional(),
  loose_objects: z.number().int().nonnegative().optional(),
});
export type CheckpointUsage = z.infer<typeof CheckpointUsageSchema>;
export const CheckpointPruneReplySchema = replySchema(z.object({ before: CheckpointUsageSchema, after: CheckpointUsageSchema }));
export const CheckpointUsageReplySchema = replySchema(CheckpointUsageSchema);
