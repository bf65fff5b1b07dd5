/**
 * One line of an eval run's `results.jsonl`: a task attempted once by one model. `check_passed`
 * is the truth (the hidden check); `outcome` is what the run itself claimed; a `done` whose check
 * failed is the worst result and is counted on its own (the honesty figure).
 */
import { z } from "zod";
import { RunExperimentSchema } from "@aide/contracts";

export const AttemptRecordSchema = z.object({
  run: z.string(),
  attempt: z.string(),
  task: z.string(),
  language: z.string(),
  category: z.string(),
  difficulty: z.string(),
  model: z.string(),
  /** The A/B arm the runner assigned (`--arm NAME=SETTINGS`); absent, the defaults. */
  arm: z.string().optional(),
  repeat: z.number().int().nonnegative(),
  /** done | unverified | failed | aborted | error (the runner could not run the session). */
  outcome: z.enum(["done", "unverified", "failed", "aborted", "error"]),
  /** The failure's code when the run failed (ITERATION_LIMIT, MODEL_FAILED, …). */
  code: z.string().optional(),
  check_passed: z.boolean(),
  check_exit_code: z.number().int().nullable(),
  check_timed_out: z.boolean(),
  iterations: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  /**
   * Prompt tokens the model re-evaluated over the attempt (the rest came from its KV cache), when
   * the model service reports it (local models); absent when unknown.
   */
  evaluated_prompt_tokens: z.number().int().nonnegative().optional(),
  tool_calls: z.number().int().nonnegative(),
  tool_errors: z.number().int().nonnegative(),
  /**
   * The well-formed-call figures (absent in older results): calls the model wrote, parsed from its
   * replies; those of them refused for their arguments (VALIDATION); replies that tried to call and
   * did not parse (`call_errors` of model.responded); replies of prose alone, with no call at all.
   */
  calls_parsed: z.number().int().nonnegative().optional(),
  calls_invalid: z.number().int().nonnegative().optional(),
  replies_malformed: z.number().int().nonnegative().optional(),
  replies_prose_only: z.number().int().nonnegative().optional(),
  model_ms: z.number().nonnegative(),
  /** The session as the runner saw it: `aide run` from spawn to exit. */
  wall_ms: z.number().nonnegative(),
  /** The session inside the stack: its first event to its terminal event. */
  session_ms: z.number().nonnegative(),
  /** The hidden check, copy included. */
  check_ms: z.number().nonnegative(),
  session: z.string().optional(),
  /** The experiment identifiers of the run's events (`run.created`). */
  experiment: RunExperimentSchema.optional(),
  /**
   * The project instructions files in the run's prompt (`instructions.loaded`: path and tokens;
   * empty when the run loaded none, absent in older results): what tells an instructions arm's
   * attempts apart, from the events, not from the arm's name.
   */
  instructions_loaded: z.array(z.object({ path: z.string(), tokens: z.number().int().nonnegative(), truncated: z.boolean() })).optional(),
  /** What `aide run` said when the session could not be run (outcome `error`). */
  error: z.string().optional(),
  /** The events file of this attempt, relative to the run folder (replayable). */
  events: z.string(),
});
export type AttemptRecord = z.infer<typeof AttemptRecordSchema>;
