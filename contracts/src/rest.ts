import { z } from "zod";
import { IdSchema } from "./reply.js";
import { ErrorBodySchema } from "./errors.js";
import { RestoreModeSchema } from "./checkpoints.js";

/** REST bodies that differ from the bus commands (the rest reuse the command schemas as-is). */
export const ErrorEnvelopeSchema = z.object({ error: ErrorBodySchema });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

export const StatusQuerySchema = z.object({ id: IdSchema });
export const CheckpointsQuerySchema = z.object({ session: IdSchema });
export const CheckpointDiffQuerySchema = z.object({
  session: IdSchema,
  from: z.string().regex(/^[0-9a-f]{40}$/),
  to: z.string().regex(/^[0-9a-f]{40}$/).optional(),
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

/** `GET /api/agent/sessions?user=&limit=` (query strings are text: the limit is coerced). */
export const SessionsQuerySchema = z.object({
  user: IdSchema.optional(),
  limit: z.coerce.number().int().positive().max(500).default(100),
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
