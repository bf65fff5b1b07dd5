import { appendFileSync, readFileSync } from "node:fs";
import { z } from "zod";
import { aideError, NativeToolCallSchema, FinishReasonSchema } from "@aide/contracts";
import type { ScriptedSpec } from "./model-spec.js";
import { estimatePromptTokens, estimateTokens, sleep, type Provider, type ProviderChatParams, type ProviderReply, type ProviderStatus } from "./provider.js";

export const ScriptedReplySchema = z
  .object({
    text: z.string().default(""),
    reasoning_content: z.string().optional(),
    tool_calls: z.array(NativeToolCallSchema).optional(),
    /** Streamed deltas; default: the text split into a few chunks. */
    chunks: z.array(z.string()).optional(),
    /** Spread over the chunks, so an abort can land mid-reply. */
    delay_ms: z.number().int().nonnegative().max(600_000).optional(),
    finish_reason: FinishReasonSchema.optional(),
  })
  .strict();
export type ScriptedReply = z.infer<typeof ScriptedReplySchema>;

/**
 * One step of a transcript: a reply, or, with `when_prompt_contains`, a reply given only when
 * some message of the request (system, user, tool results) contains that text, and `otherwise`
 * when none does. An oracle that follows what its prompt says (the eval's instructions arm: the
 * project's AGENTS.md in the prompt or not) is scripted this way, not per arm.
 */
export const ScriptedStepSchema = ScriptedReplySchema.extend({
  when_prompt_contains: z.string().min(1).optional(),
  otherwise: ScriptedReplySchema.optional(),
})
  .strict()
  .refine((step) => (step.when_prompt_contains === undefined) === (step.otherwise === undefined), { message: "when_prompt_contains and otherwise go together", path: ["otherwise"] });
export const ScriptedTranscriptSchema = z.object({ replies: z.array(ScriptedStepSchema) }).strict();
export type ScriptedTranscript = z.infer<typeof ScriptedTranscriptSchema>;
export type ScriptedStep = z.infer<typeof ScriptedStepSchema>;

/** Splits text into up to `parts` chunks at word boundaries (for the default streaming). */
export function splitIntoChunks(text: string, parts = 4): string[] {
  if (text.length === 0) return [];
  const words = text.match(/\S+\s*|\s+/g) ?? [text];
  const perChunk = Math.max(1, Math.ceil(words.length / parts));
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += perChunk) chunks.push(words.slice(i, i + perChunk).join(""));
  return chunks;
}

function loadTranscript(path: string): ScriptedTranscript {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw aideError("MODEL_UNAVAILABLE", { model: path, detail: `cannot read the transcript: ${(error as Error).message}` });
  }
  const parsed = ScriptedTranscriptSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw aideError("CONFIG_INVALID", { detail: `${path}: ${issue.path.map(String).join(".")}: ${issue.message}` });
  }
  return parsed.data;
}

/** The reply a step gives to these messages: its own, or `otherwise` when its condition is not met. */
export function replyFor(step: ScriptedStep, messages: ReadonlyArray<{ content: string }>): ScriptedReply {
  const { when_prompt_contains: needle, otherwise, ...own } = step;
  if (needle === undefined || otherwise === undefined) return own;
  return messages.some((message) => message.content.includes(needle)) ? own : otherwise;
}

/**
 * Replays a transcript file (for tests and offline demos): each session has its own cursor
 * through the replies; every request is appended to `record` as one JSON line. Token counts are
 * estimates (about 4 characters per token): there is no tokenizer behind a script.
 */
export class ScriptedProvider implements Provider<ScriptedSpec> {
  readonly kind = "scripted" as const;
  private readonly cursors = new Map<string, number>();

  async status(spec: ScriptedSpec): Promise<ProviderStatus> {
    try {
      const transcript = loadTranscript(spec.transcript);
      return { available: true, loaded: true, detail: `${transcript.replies.length} scripted replies` };
    } catch (error) {
      return { available: false, loaded: false, detail: (error as Error).message };
    }
  }

  async chat({ spec, request, signal, onDelta }: ProviderChatParams<ScriptedSpec>): Promise<ProviderReply> {
    if (spec.record) appendFileSync(spec.record, JSON.stringify({ ...request, model: spec.id }) + "\n", { mode: 0o600 });
    const transcript = loadTranscript(spec.transcript);
    const key = `${spec.id}\u0000${request.session}`;
    const cursor = this.cursors.get(key) ?? 0;
    const step = transcript.replies[cursor];
    if (!step) throw aideError("MODEL_FAILED", { detail: `scripted transcript exhausted after ${transcript.replies.length} replies` });
    this.cursors.set(key, cursor + 1);
    const reply = replyFor(step, request.messages);

    const chunks = reply.chunks ?? splitIntoChunks(reply.text);
    const pause = reply.delay_ms !== undefined && chunks.length > 0 ? reply.delay_ms / chunks.length : (reply.delay_ms ?? 0);
    let text = "";
    if (chunks.length === 0 && pause > 0 && !(await sleep(pause, signal))) return this.aborted(request, text);
    for (const chunk of chunks) {
      if (pause > 0 && !(await sleep(pause, signal))) return this.aborted(request, text);
      if (signal.aborted) return this.aborted(request, text);
      text += chunk;
      onDelta(chunk);
    }
    const toolCalls = reply.tool_calls ?? [];
    return {
      text: reply.chunks ? text : reply.text,
      ...(reply.reasoning_content !== undefined ? { reasoning_content: reply.reasoning_content } : {}),
      tool_calls: toolCalls,
      finish_reason: reply.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      usage: { prompt_tokens: estimatePromptTokens(request), completion_tokens: estimateTokens(text) + (toolCalls.length > 0 ? estimateTokens(JSON.stringify(toolCalls)) : 0) },
    };
  }

  private aborted(request: ProviderChatParams["request"], text: string): ProviderReply {
    return { text, tool_calls: [], finish_reason: "abort", usage: { prompt_tokens: estimatePromptTokens(request), completion_tokens: estimateTokens(text) } };
  }

  async close(): Promise<void> {
    this.cursors.clear();
  }
}
