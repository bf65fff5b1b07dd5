import { z } from "zod";

/**
 * The parts of a model's first capability probe, in order: `loading` (the model file or endpoint is
 * being opened; the first chat waits on it), `speed`, `kv_reuse`, `stop`, `long_prompt` (endpoints
 * that may cut a prompt), `tool_trials`, then `done`.
 */
export const ProbeStageSchema = z.enum(["loading", "speed", "kv_reuse", "stop", "long_prompt", "tool_trials", "done"]);
export type ProbeStage = z.infer<typeof ProbeStageSchema>;

/**
 * One progress report of a probe: sent by the model service to `agent.model.progress.<token>` of
 * every caller waiting on it (`ModelProbeRequest.progress`), and put into a run's event stream as
 * `model.probing`. `step` of `steps` counts the probe's chats (a cached profile sends none).
 */
export const ModelProbeProgressSchema = z.object({
  model: z.string(),
  stage: ProbeStageSchema,
  step: z.number().int().nonnegative(),
  steps: z.number().int().positive(),
  percent: z.number().min(0).max(100),
  elapsed_ms: z.number().nonnegative(),
});
export type ModelProbeProgress = z.infer<typeof ModelProbeProgressSchema>;

/** Tokens a caller names its progress subject with (one subject token, no wildcards). */
export const ProgressTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** Where the model service sends a probe's progress for the caller that named `token`. */
export function modelProgressSubject(token: string): string {
  return `agent.model.progress.${token}`;
}
