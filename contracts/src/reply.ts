import { z } from "zod";
import { ErrorBodySchema } from "./errors.js";

/** Every request/reply subject answers `{ ok: true, result }` or `{ ok: false, error }`. */
export function replySchema<T extends z.ZodTypeAny>(result: T) {
  return z.discriminatedUnion("ok", [z.object({ ok: z.literal(true), result }), z.object({ ok: z.literal(false), error: ErrorBodySchema })]);
}

export const ErrorReplySchema = z.object({ ok: z.literal(false), error: ErrorBodySchema });
export type ErrorReply = z.infer<typeof ErrorReplySchema>;
export type Reply<T> = { ok: true; result: T } | ErrorReply;

/** Identifiers: short, URL- and subject-safe (no dots, wildcards or spaces). */
export const IdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, '_' or '-'");
