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
