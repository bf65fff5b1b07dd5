import { z } from "zod";
import { aideError } from "@aide/contracts";
import { admissionLimits, optionalPositiveIntegerSetting } from "@aide/runtime";

/**
 * The model service's admission limits (documented in services/model/README.md, "Configuration"):
 * chat requests handled at once, waiting over all sessions, and waiting per session. A local GGUF
 * model runs its sequences in its own engine whatever this admits; the limit matters for remote
 * OpenAI-compatible endpoints and scripted models, which can serve many requests at once.
 */
export interface ModelLoadLimits {
  maxConcurrent: number;
  maxQueued: number;
  maxQueuedPerSession: number;
}

const LoadLimitsSchema = z.object({
  AIDE_MODEL_MAX_CONCURRENT: optionalPositiveIntegerSetting(),
  AIDE_MODEL_MAX_QUEUED: optionalPositiveIntegerSetting(),
  AIDE_MODEL_MAX_QUEUED_PER_SESSION: optionalPositiveIntegerSetting(),
});

/** Reads the limits; one that is set but not a positive integer is refused (CONFIG_INVALID), never replaced by its default. */
export function readModelLoadLimits(env: NodeJS.ProcessEnv): ModelLoadLimits {
  const parsed = LoadLimitsSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])])})`).join("; ");
    throw aideError("CONFIG_INVALID", { detail });
  }
  // Unset ones take the runtime's own defaults (one rule, in startService's admissionLimits).
  return admissionLimits({ maxConcurrent: parsed.data.AIDE_MODEL_MAX_CONCURRENT, maxQueued: parsed.data.AIDE_MODEL_MAX_QUEUED, maxQueuedPerSession: parsed.data.AIDE_MODEL_MAX_QUEUED_PER_SESSION });
}
