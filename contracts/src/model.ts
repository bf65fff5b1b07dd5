import { z } from "zod";
import { IdSchema, replySchema } from "./reply.js";
import { ModelProfileSchema } from "./model-profile.js";
import { EditFormatSchema } from "./setting-table.js";
import { ProgressTokenSchema } from "./probe-progress.js";

export const ChatRoleSchema = z.enum(["system", "user", "assistant", "tool"]);
export const NativeToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
export type NativeToolCall = z.infer<typeof NativeToolCallSchema>;

export const ChatMessageSchema = z.object({
  role: ChatRoleSchema,
  content: z.string(),
  /** Provider reasoning kept across tool turns where the provider needs it; never shown to users. */
  reasoning_content: z.string().optional(),
  tool_calls: z.array(NativeToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ChatToolSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ChatTool = z.infer<typeof ChatToolSchema>;

export const ModelChatRequestSchema = z.object({
  request_id: IdSchema,
  /** Keeps a warm context sequence per session for local models. */
  session: IdSchema,
  /**
   * A request outside the session's conversation (the compaction summary): it runs on a sequence of
   * its own that is discarded after, so the session's warm sequence (its KV cache) is untouched.
   */
  one_off: z.boolean().optional(),
  model: z.string().min(1).max(128).optional(),
  messages: z.array(ChatMessageSchema).min(1),
  tools: z.array(ChatToolSchema).default([]),
  /**
   * How the model writes its calls: `xml`, the text protocol the system prompt teaches; `native`,
   * the model's own format as its chat template defines it (the template lists the tools; for a
   * local GGUF the service parses the calls from the reply, for an endpoint the server does).
   * Absent: the model entry's choice.
   */
  tool_format: z.enum(["xml", "native"]).optional(),
  /** Constrain local decoding to well-formed tool-call blocks (on by default for local models). */
  grammar: z.boolean().optional(),
  /** What the grammar covers: prose then the call (`call`) or the whole reply (`reply`, the default: one call alone, or prose alone). */
  grammar_scope: z.enum(["call", "reply"]).optional(),
  /** The grammar also encodes the argument schemas' own rules (argument sets, integer ranges, string lengths); default on. */
  grammar_schema: z.boolean().optional(),
  /**
   * Tools the grammar leaves out while they stay offered in the prompt (the completion_grammar
   * strategy: `attempt_completion` before the run has evidence the gate could accept). Ignored
   * where it would leave the grammar no tool.
   */
  grammar_exclude_tools: z.array(z.string().min(1).max(128)).max(64).optional(),
  /**
   * The path_grammar strategy: the `path` argument of `tools` is one of `paths` (files that
   * exist), and that of `new_path_tools` one of them or a plain relative path. Entries longer than
   * what the reply's budget leaves a path are left out of the grammar.
   */
  grammar_paths: z
    .object({
      paths: z.array(z.string().min(1).max(1024)).max(1024),
      tools: z.array(z.string().min(1).max(128)).max(64),
      new_path_tools: z.array(z.string().min(1).max(128)).max(64).default([]),
      /** The workspace's folders (`.` first) that the `path` of `directory_tools` (list_dir, search_files) is spelled as. */
      directories: z.array(z.string().min(1).max(1024)).max(1024).default([]),
      directory_tools: z.array(z.string().min(1).max(128)).max(64).default([]),
    })
    .strict()
    .optional(),
  /**
   * The search_grammar strategy: the `path` and `search` of `tool` (replace_in_file) are spelled
   * together as one of `files` and one of its `lines` (lines of a file the run read, each found
   * once in it); the `search`+`replace` argument set is the only one. Lines longer than what the
   * reply's budget leaves are left out; with none left the tool keeps its own rules.
   */
  grammar_edits: z
    .object({
      tool: z.string().min(1).max(128),
      files: z.array(z.object({ path: z.string().min(1).max(1024), lines: z.array(z.string().min(1).max(2000)).max(400) }).strict()).max(16),
      /** The line_edits strategy: `replace` is one line that starts with the chosen line's own indent. */
      one_line: z.boolean().optional(),
    })
    .strict()
    .optional(),
  /** The lean_calls strategy: the grammar spells only each call's required parameters (the optional ones take their defaults). */
  grammar_required_only: z.boolean().optional(),
  /** With tools: "required" forces at least one call, "none" forbids calls; default "auto". */
  tool_choice: z.enum(["auto", "required", "none"]).optional(),
  /** Most tool calls in one reply under the grammar (default 1: one call per message, then stop). */
  max_tool_calls: z.number().int().positive().max(16).optional(),
  /** Sampling seed (local models), for reproducible runs. */
  seed: z.number().int().nonnegative().optional(),
  max_tokens: z.number().int().positive().max(131_072).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Stream deltas to agent.model.delta.<request_id>. */
  stream: z.boolean().default(true),
  timeout_ms: z.number().int().positive().max(3_600_000).optional(),
});
export type ModelChatRequest = z.infer<typeof ModelChatRequestSchema>;

export const ModelDeltaSchema = z.object({
  request_id: z.string(),
  index: z.number().int().nonnegative(),
  text: z.string(),
});
export type ModelDelta = z.infer<typeof ModelDeltaSchema>;

export const FinishReasonSchema = z.enum(["stop", "length", "tool_calls", "abort", "error"]);
export const ModelChatResultSchema = z.object({
  request_id: z.string(),
  model: z.string(),
  text: z.string(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(NativeToolCallSchema).default([]),
  finish_reason: FinishReasonSchema,
  usage: z.object({
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
    /** Prompt tokens actually evaluated (the rest came from the KV cache). */
    evaluated_prompt_tokens: z.number().int().nonnegative().optional(),
  }),
  timings: z.object({ total_ms: z.number().nonnegative(), first_token_ms: z.number().nonnegative().optional() }),
});
export type ModelChatResult = z.infer<typeof ModelChatResultSchema>;
export const ModelChatReplySchema = replySchema(ModelChatResultSchema);

/** Abort a generation in flight (agent.model.abort); the reply says whether one was running. */
export const ModelAbortRequestSchema = z.object({ request_id: IdSchema });
export const ModelAbortResultSchema = z.object({ aborted: z.boolean() });
export const ModelAbortReplySchema = replySchema(ModelAbortResultSchema);

export const ModelListRequestSchema = z.object({}).passthrough();
export const ModelInfoSchema = z.object({
  id: z.string(),
  provider: z.enum(["llama", "openai", "scripted"]),
  /** Display name (e.g. "Luna"). */
  label: z.string().optional(),
  thinking: z.boolean(),
  thinking_label: z.string().optional(),
  reasoning_effort: z.enum(["low", "medium", "high", "max"]).optional(),
  native_tools: z.boolean(),
  context_budget: z.number().int().positive(),
  max_output_tokens: z.number().int().positive(),
  max_iterations: z.number().int().positive(),
  available: z.boolean(),
  loaded: z.boolean(),
  detail: z.string().optional(),
  /** "configured" (models.json) or "discovered" (a GGUF in $AIDE_HOME/models, a loopback server). */
  source: z.enum(["configured", "discovered", "built-in"]).optional(),
  /** The capability probe's cached profile, when one was taken. */
  profile: ModelProfileSchema.optional(),
  /** The edit format chosen for this model (its registry entry's `editFormat`, e.g. from eval results); a run uses it when its start sets none. */
  edit_format: EditFormatSchema.optional(),
});
export type ModelInfo = z.infer<typeof ModelInfoSchema>;
export const ModelListResultSchema = z.object({
  models: z.array(ModelInfoSchema),
  /** The default model's id; "" when no model is configured or found. */
  default: z.string(),
  /** With no model at all: what to do (drop a GGUF into …, start Ollama, or `aide models add`). */
  hint: z.string().optional(),
});
export const ModelListReplySchema = replySchema(ModelListResultSchema);

/**
 * agent.model.reload: read the registry again (models.json and discovery) without a restart. The
 * supervisor, which sees the file outside the service's sandbox, may send the document it read.
 */
export const ModelReloadRequestSchema = z
  .object({
    /** The registry document (models.json's parsed content); absent: re-read the file the service knows. */
    document: z.unknown().optional(),
    /** Where the document came from, for messages (a path). */
    source: z.string().max(4096).optional(),
  })
  .strict();
export type ModelReloadRequest = z.infer<typeof ModelReloadRequestSchema>;
export const ModelReloadResultSchema = z.object({ source: z.string(), default: z.string(), models: z.array(z.string()) });
export const ModelReloadReplySchema = replySchema(ModelReloadResultSchema);

/** agent.model.probe: run (or read the cached) capability probe of one model. */
export const ModelProbeRequestSchema = z
  .object({
    model: z.string().min(1).max(128).optional(),
    /** Run again even when a cached profile matches the file or endpoint. */
    refresh: z.boolean().default(false),
    trials: z.number().int().nonnegative().max(50).optional(),
    /**
     * Asked by a run, not by a person: a remote endpoint (paid, off this machine) is then not probed,
     * only a local model or a loopback server.
     */
    automatic: z.boolean().default(false),
    /** While a probe runs, its progress goes to `agent.model.progress.<progress>` (`modelProgressSubject`); nothing is sent for a cached profile. */
    progress: ProgressTokenSchema.optional(),
  })
  .strict();
export const ModelProbeReplySchema = replySchema(ModelProfileSchema);
