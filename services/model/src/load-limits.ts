import { z } from "zod";
import { aideError } from "@aide/contracts";

/**
 * The model service's admission limits (documented in services/model/README.md, "Settings"):
 * chat requests handled at once, waiting over all sessions, and waiting per session. A local GGUF
 * model runs its sequences in its own engine whatever this admits; the limit matters for remote
 * OpenAI-compatible endpoints and scripted models, which can serve many requests at once.
 */
export interface ModelLoadLimits {
  maxConcurrent: number;
  maxQueued: number;
  maxQueuedPerSession: number;
}

const count = (fallback: number) =>
  z.preprocess((value) => (value === undefined || value === "" ? undefined : Number(value)), z.number().int().positive().default(fallback));

const LoadLimitsSchema = z.object({
  AIDE_MODEL_MAX_CONCURRENT: count(64),
  AIDE_MODEL_MAX_QUEUED: z.preprocess((value) => (value === undefined || value === "" ? undefined : Number(value)), z.number().int().positive().optional()),
  AIDE_MODEL_MAX_QUEUED_PER_SESSION: z.preprocess((value) => (value === undefined || value === "" ? undefined : Number(value)), z.number().int().positive().optional()),
});

/** Reads the limits; one that is set but not a positive integer is refused (CONFIG_INVALID), never replaced by its default. */
export function readModelLoadLimits(env: NodeJS.ProcessEnv): ModelLoadLimits {
  const parsed = LoadLimitsSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])])})`).join("; ");
    throw aideError("CONFIG_INVALID", { detail });
  }
  const maxConcurrent = parsed.data.AIDE_MODEL_MAX_CONCURRENT;
  return {
    maxConcurrent,
    // The runtime's defaults: four times the slots waiting in all, as many as the slots (at least 4) per session.
    maxQueued: parsed.data.AIDE_MODEL_MAX_QUEUED ?? maxConcurrent * 4,
    maxQueuedPerSession: parsed.data.AIDE_MODEL_MAX_QUEUED_PER_SESSION ?? Math.max(4, maxConcurrent),
  };
}
