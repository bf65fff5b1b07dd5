import { z } from "zod";

/**
 * What the capability probe measured about one model (one GGUF file or one endpoint's model), as
 * the model service caches it and the orchestrator reads it to build the context: the real window,
 * the prompt tier, whether to constrain decoding with the grammar, native or XML tool calls.
 */
export const PromptTierSchema = z.enum(["compact", "full"]);
export type PromptTier = z.infer<typeof PromptTierSchema>;

/** Windows up to this many tokens get the compact prompt tier. */
export const COMPACT_TIER_MAX_WINDOW = 8192;

export function promptTierFor(windowTokens: number): PromptTier {
  return windowTokens <= COMPACT_TIER_MAX_WINDOW ? "compact" : "full";
}

const Rate = z.number().nonnegative();

export const ToolTrialsSchema = z.object({
  trials: z.number().int().nonnegative(),
  /** Replies that held exactly one well-formed call of an offered tool. */
  valid: z.number().int().nonnegative(),
  /** Native endpoints: replies whose call came back parsed by the server (tool_calls), not as text. */
  native: z.number().int().nonnegative().optional(),
});
export type ToolTrials = z.infer<typeof ToolTrialsSchema>;

export const ModelProfileSchema = z.object({
  /** The model id the probe ran against. */
  model: z.string(),
  provider: z.enum(["llama", "openai", "scripted"]),
  /** What the cache is keyed by: the file (path, size, mtime) or the endpoint (URL and model). */
  key: z.string(),
  probed_at: z.string(),
  context: z.object({
    /** The window the model was trained with (GGUF `<arch>.context_length`, Ollama's model info). */
    trained: z.number().int().positive().optional(),
    /** The window actually loaded (the local context, llama-server's n_ctx, Ollama's applied num_ctx). */
    loaded: z.number().int().positive().optional(),
    /** The prompt tokens the server reported for the probe's long prompt, and what was sent (estimated). */
    long_prompt: z.object({ sent: z.number().int().nonnegative(), evaluated: z.number().int().nonnegative(), truncated: z.boolean() }).optional(),
    /** The window the orchestrator should budget for: the smallest of the above that is known. */
    window: z.number().int().positive(),
  }),
  prompt_tier: PromptTierSchema,
  /** Constrain decoding with the tool-call grammar (local models). */
  grammar: z.boolean(),
  tool_calls: z.enum(["native", "xml"]),
  speed: z.object({
    prefill_tokens_per_s: Rate.optional(),
    decode_tokens_per_s: Rate.optional(),
  }),
  /** Characters per prompt token measured on English prose (the orchestrator's character budget). */
  chars_per_token: z.number().positive().optional(),
  /** A second turn on the same session evaluated only the new tokens (undefined: not measurable). */
  kv_reuse: z
    .object({
      reused: z.boolean(),
      second_turn_prompt: z.number().int().nonnegative(),
      second_turn_evaluated: z.number().int().nonnegative(),
      /** The same at the last turn of the probe's conversation (turn 10): the cache still holds the history. */
      last_turn: z.object({ turn: z.number().int().positive(), prompt: z.number().int().nonnegative(), evaluated: z.number().int().nonnegative(), reused: z.boolean() }).optional(),
    })
    .optional(),
  /**
   * Stop handling on a short question with room to spare: why the reply ended, and whether the
   * chat template's end-of-turn marker leaked into the text (a stop string the server missed).
   */
  stop: z.object({ finish_reason: z.string(), completion_tokens: z.number().int().nonnegative(), leaked_marker: z.string().optional() }).optional(),
  tool_trials: z.object({ with_grammar: ToolTrialsSchema.optional(), without_grammar: ToolTrialsSchema }),
  template: z.object({
    /** node-llama-cpp's chat wrapper name, or the endpoint's own template. */
    name: z.string(),
    system_role: z.boolean(),
  }),
  notes: z.array(z.string()).default([]),
});
export type ModelProfile = z.infer<typeof ModelProfileSchema>;
