import { z } from "zod";
import { IdSchema } from "./reply.js";
import { ErrorBodySchema } from "./errors.js";
import { RestoreModeSchema } from "./checkpoints.js";
import { RunStateSchema } from "./commands.js";

/** REST bodies that differ from the bus commands (the rest reuse the command schemas as-is). */
export const ErrorEnvelopeSchema = z.object({ error: ErrorBodySchema });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

export const StatusQuerySchema = z.object({ id: IdSchema });
export const CheckpointsQuerySchema = z.object({ session: IdSchema });
export const CheckpointDiffQuerySchema = z.object({
  session: IdSchema,
  from: z.string().regex(/^[0-9a-f]{40}$/),
  to: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
});
export const CheckpointRestoreBodySchema = z.object({
  session: IdSchema,
  checkpoint: z.string().regex(/^[0-9a-f]{40}$/),
  mode: RestoreModeSchema.default("files_and_task"),
  /** First call without confirm returns the plan; the second with confirm applies it. */
  confirm: z.boolean().default(false),
  force: z.boolean().default(false),
});
export const EventsQuerySchema = z.object({
  session: IdSchema,
  since: z.coerce.number().int().nonnegative().default(0),
});
export const HealthSchema = z.object({
  ok: z.boolean(),
  services: z.record(z.string(), z.boolean()),
  version: z.string(),
});

/** `POST /api/panel/link`: a one-time login link for the web panel (`aide open`), optionally opening a session. */
export const PanelLinkBodySchema = z.object({ session: IdSchema.optional() });
export const PanelLinkReplySchema = z.object({
  /** Path and query to append to the gateway's URL: `/?code=…` (single use), then `#session=…` when asked. */
  path: z.string(),
  expires_at: z.string(),
});

/**
 * `GET /api/agent/sessions?user=&limit=&offset=&state=&workspace=&query=` (query strings are text:
 * the numbers are coerced). Newest first; `total` counts every match, so a client pages with offset.
 */
export const SessionsQuerySchema = z.object({
  user: IdSchema.optional(),
  limit: z.coerce.number().int().positive().max(500).default(100),
  offset: z.coerce.number().int().nonnegative().default(0),
  state: RunStateSchema.optional(),
  workspace: z.string().min(1).max(4096).optional(),
  query: z.string().min(1).max(200).optional(),
});

/**
 * What the gateway sends on `/api/events`: stored and live events in `seq` order (`event`), the
 * approvals still pending whose request was at or before `since` (`approval.pending`, sent again
 * on every reconnect so no client misses a decision it must make), `ready` once the replay has
 * caught up with the session, and `error` before the gateway closes the socket.
 */
export const WsEventFrameSchema = z.object({ type: z.literal("event"), event: z.record(z.string(), z.unknown()) });
export const WsPendingFrameSchema = z.object({ type: z.literal("approval.pending"), event: z.record(z.string(), z.unknown()) });
export const WsReadyFrameSchema = z.object({ type: z.literal("ready"), last_seq: z.number().int().nonnegative() });
export const WsErrorFrameSchema = z.object({ type: z.literal("error"), error: ErrorBodySchema });
export const WsFrameSchema = z.discriminatedUnion("type", [WsEventFrameSchema, WsPendingFrameSchema, WsReadyFrameSchema, WsErrorFrameSchema]);
export type WsFrame = z.infer<typeof WsFrameSchema>;

/** WebSocket close codes the gateway uses (4000–4999 are the application's). */
export const wsCloseCodes = {
  /** The client fell too far behind: reconnect with `since` = the last seq it received. */
  resume: 4008,
  sessionNotFound: 4404,
  unavailable: 4503,
  /** The gateway is shutting down (the standard "going away"): reconnect, with `since`. */
  goingAway: 1001,
} as const;

/** `$AIDE_HOME/stack.json`, written by the supervisor at `aide up`: how clients find the stack. */
export const StackFileSchema = z.object({
  gateway_url: z.string().url(),
  token_file: z.string().min(1),
  nats_url: z.string().optional(),
  pid: z.number().int().positive().optional(),
});
export type StackFile = z.infer<typeof StackFileSchema>;

/** `GET /api/agent/costs?session=`: the session's token and time figures, summed from its events. */
export const CostsQuerySchema = z.object({ session: IdSchema });
/** Sums over a set of events: `model.responded` (turns, tokens, model time) and `tool.completed` (tool calls, tool time). */
export const CostFiguresSchema = z.object({
  turns: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  /** The sum of `cached_prompt_tokens` over the turns that report it (a provider may not). */
  cached_prompt_tokens: z.number().int().nonnegative(),
  /** `model.responded.duration_ms` summed: time spent waiting for the model. */
  model_ms: z.number().nonnegative(),
  tool_calls: z.number().int().nonnegative(),
  /** `tool.completed.duration_ms` summed. */
  tool_ms: z.number().nonnegative(),
});
export type CostFigures = z.infer<typeof CostFiguresSchema>;
/** One model turn (`model.responded`) and the tool calls that followed it in the same run and depth. */
export const TurnCostSchema = z.object({
  /** The `model.responded` event's seq. */
  seq: z.number().int().positive(),
  run: z.string(),
  depth: z.number().int().nonnegative(),
  request_id: z.string(),
  /** The iteration of its `model.requested`, when that event was seen. */
  iteration: z.number().int().optional(),
  model: z.string().optional(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  /** Absent when the provider did not report its cache use for this turn. */
  cached_prompt_tokens: z.number().int().nonnegative().optional(),
  model_ms: z.number().nonnegative(),
  tool_calls: z.number().int().nonnegative(),
  tool_ms: z.number().nonnegative(),
});
export type TurnCost = z.infer<typeof TurnCostSchema>;
export const SessionCostsSchema = z.object({
  session: IdSchema,
  /** The last event seq the figures cover. */
  last_seq: z.number().int().nonnegative(),
  /** Every turn, in seq order (child agents' turns included, with their depth). */
  turns: z.array(TurnCostSchema),
  /** Per run, in the order the runs started. */
  runs: z.array(CostFiguresSchema.extend({ run: z.string() })),
  /** The whole session: every `model.responded` and `tool.completed` event (a tool call before any turn of its run counts here and in its run). */
  totals: CostFiguresSchema,
});
export type SessionCosts = z.infer<typeof SessionCostsSchema>;

/** `GET /api/eval/latest`: the newest eval run's scoreboard (`$AIDE_HOME/eval/<run>/report.json`, as `aide eval` wrote it). */
export const EvalLatestReplySchema = z.object({
  /** The run folder's name (e.g. `run-2026-12-01T14-00-00-000Z`). */
  run: z.string(),
  /** When report.json was written (its modification time). */
  written_at: z.string(),
  /** report.json's content, as written by `aide eval` (cli/src/eval). */
  report: z.unknown(),
  /** The run's report files the gateway serves, each at `/api/eval/latest/<name>`: report.json, report.html, report.md and its `*.svg` charts. */
  files: z.array(z.string()),
});
export type EvalLatestReply = z.infer<typeof EvalLatestReplySchema>;
/** `GET /api/eval/latest/:name`: one of the files `GET /api/eval/latest` lists (never a path). */
export const EvalFileParamsSchema = z.object({ name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$/) });
