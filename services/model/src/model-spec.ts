import { z } from "zod";
import { EditFormatSchema } from "@aide/contracts";

/**
 * The ModelSpec registry: the server-side source of truth for every model the agent may use
 * (public id, provider, provider model id or file, thinking, reasoning effort, budgets, threads).
 * Config files are validated with these schemas; a bad field is refused with its path.
 */
const ModelIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, "must be letters, digits, '.', ':', '_' or '-'");

const CommentSchema = z.string().optional();

const CommonSpecShape = {
  /** A note for the operator; ignored. */
  $comment: CommentSchema,
  id: ModelIdSchema,
  /** Display name (e.g. "Luna"). */
  label: z.string().max(128).optional(),
  /** Whether the model can think (boolean capability, not an effort level). */
  thinking: z.boolean().default(false),
  /** How the UI labels thinking for this model (e.g. "Thinking"). */
  thinkingLabel: z.string().max(64).optional(),
  reasoningEffort: z.enum(["low", "medium", "high", "max"]).optional(),
  maxOutputTokens: z.number().int().positive().max(131_072).default(1024),
  maxIterations: z.number().int().positive().max(1000).default(25),
  /** The prompt budget in tokens the orchestrator should stay under. */
  contextBudget: z.number().int().positive().max(2_000_000).default(4096),
  /** Provider-native tool calls (otherwise the orchestrator uses the XML text protocol). */
  nativeTools: z.boolean().default(false),
  /**
   * The edit format a run with this model uses when its start sets none (chosen from
   * eval results, `aide models edit-format ID FORMAT`); absent: the router's choice.
   */
  editFormat: EditFormatSchema.optional(),
};

export const LlamaSpecSchema = z
  .object({
    ...CommonSpecShape,
    provider: z.literal("llama"),
    /** Absolute path of a GGUF file. */
    file: z.string().min(1).optional(),
    /** A model URI (e.g. "hf:owner/repo/file.gguf") pulled into $AIDE_HOME/models by `aide models pull`. */
    uri: z.string().min(1).optional(),
    /** CPU threads; default chosen from the real core count (see llama-threads.ts). */
    threads: z.number().int().positive().max(256).optional(),
    gpuLayers: z.number().int().nonnegative().max(1000).default(0),
    /** Context window in tokens of each session's sequence (default: contextBudget). */
    contextSize: z.number().int().positive().max(1_000_000).optional(),
    /** Warm sessions kept per loaded model before the least recently used is evicted. */
    maxSessions: z.number().int().positive().max(64).default(4),
    /** Grammar-constrained tool calls by default (a request may turn it off). */
    grammar: z.boolean().default(true),
    /**
     * llama.cpp's flash attention for the context (default on: 15-30 % less CPU per token on the
     * real 135M-270M models, bench/results/eval-real-time-notes.md; llama-server's default too).
     */
    flashAttention: z.boolean().optional(),
  })
  .strict()
  .refine((spec) => spec.file !== undefined || spec.uri !== undefined, { message: "a llama model needs file or uri", path: ["file"] });

export const OpenAiSpecSchema = z
  .object({
    ...CommonSpecShape,
    provider: z.literal("openai"),
    /** The endpoint's base URL, up to /v1 (e.g. http://127.0.0.1:11434/v1). */
    baseUrl: z.string().url(),
    /** The provider's model id. */
    model: z.string().min(1).max(256),
    /** Consent for an endpoint off loopback; without it the model is refused (offline by default). */
    allowRemote: z.boolean().default(false),
    /** Name of the environment variable holding the API key. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    /** Path of a file (mode 0600) holding the API key. */
    apiKeyFile: z.string().min(1).optional(),
    /** "ollama" sets options.num_ctx explicitly and checks the prompt count against truncation. */
    flavor: z.enum(["openai", "ollama", "llamacpp", "deepseek"]).default("openai"),
    /** Keep the provider's reasoning_content in the history it is sent (DeepSeek thinking with tools). */
    keepReasoning: z.boolean().default(false),
    timeoutMs: z.number().int().positive().max(3_600_000).default(120_000),
    maxRetries: z.number().int().nonnegative().max(10).default(3),
    /** First back-off delay; doubles each retry (Retry-After wins when the server sends it). */
    retryBaseMs: z.number().int().nonnegative().max(60_000).default(500),
  })
  .strict();

export const ScriptedSpecSchema = z
  .object({
    ...CommonSpecShape,
    provider: z.literal("scripted"),
    /** A JSON file `{ "replies": [...] }` replayed in order, one cursor per session. */
    transcript: z.string().min(1),
    /** Every request received is appended here as one JSON line. */
    record: z.string().min(1).optional(),
  })
  .strict();

export const ModelSpecSchema = z.discriminatedUnion("provider", [LlamaSpecSchema, OpenAiSpecSchema, ScriptedSpecSchema]);
export type ModelSpec = z.infer<typeof ModelSpecSchema>;
export type LlamaSpec = z.infer<typeof LlamaSpecSchema>;
export type OpenAiSpec = z.infer<typeof OpenAiSpecSchema>;
export type ScriptedSpec = z.infer<typeof ScriptedSpecSchema>;

export const RegistryConfigSchema = z
  .object({
    $comment: CommentSchema,
    default: ModelIdSchema.optional(),
    models: z.array(ModelSpecSchema).min(1),
  })
  .strict()
  .superRefine((config, context) => {
    const seen = new Set<string>();
    config.models.forEach((spec, index) => {
      if (seen.has(spec.id)) context.addIssue({ code: "custom", path: ["models", index, "id"], message: `duplicate model id ${spec.id}` });
      seen.add(spec.id);
    });
    if (config.default !== undefined && !seen.has(config.default)) {
      context.addIssue({ code: "custom", path: ["default"], message: `no model with id ${config.default}` });
    }
  });
export type RegistryConfig = z.infer<typeof RegistryConfigSchema>;

export interface ModelRegistry {
  default: string;
  models: ModelSpec[];
  /** Where the registry came from (a file path, "discovery", or both). */
  source: string;
  /** Each id's origin (absent: configured). */
  origins?: Record<string, "configured" | "discovered">;
  /** What discovery asked and found, one line per place. */
  report?: string[];
  /** Set when the registry is empty: what to do to get a model. */
  hint?: string;
}
