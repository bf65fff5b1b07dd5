import type { Logger } from "pino";
import { z } from "zod";
import { aideError, AideError, type NativeToolCall } from "@aide/contracts";
import type { OpenAiSpec } from "./model-spec.js";
import { assertEndpointAllowed, isLoopbackUrl, resolveApiKey } from "./endpoint-policy.js";
import { postStreaming, readLines, readSseData, type AttemptSignal } from "./http-stream.js";
import { chatCompletionsUrl, contextSizeOf, ollamaBody, ollamaChatUrl, openAiBody } from "./openai-wire.js";
import { estimatePromptTokens, estimateTokens, type Provider, type ProviderChatParams, type ProviderFacts, type ProviderReply, type ProviderStatus } from "./provider.js";
import { fetchJson } from "./discovery/discover-servers.js";

export interface OpenAiProviderOptions {
  env: Record<string, string | undefined>;
  logger: Logger;
}

const ChunkSchema = z
  .object({
    choices: z
      .array(
        z.object({
          delta: z
            .object({
              content: z.string().nullish(),
              reasoning_content: z.string().nullish(),
              tool_calls: z
                .array(
                  z.object({
                    index: z.number().int().nonnegative().default(0),
                    id: z.string().nullish(),
                    function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).partial().nullish(),
                  }),
                )
                .nullish(),
            })
            .partial()
            .nullish(),
          finish_reason: z.string().nullish(),
        }),
      )
      .default([]),
    usage: z
      .object({
        prompt_tokens: z.number().int().nonnegative(),
        completion_tokens: z.number().int().nonnegative(),
        /** OpenAI's (and llama-server's, vLLM's) count of prompt tokens served from the prompt cache. */
        prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullish() }).partial().nullish(),
      })
      .partial()
      .nullish(),
  })
  .passthrough();

const OllamaLineSchema = z
  .object({
    message: z
      .object({
        content: z.string().nullish(),
        thinking: z.string().nullish(),
        tool_calls: z.array(z.object({ function: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) }) })).nullish(),
      })
      .partial()
      .nullish(),
    done: z.boolean().default(false),
    done_reason: z.string().nullish(),
    prompt_eval_count: z.number().int().nonnegative().nullish(),
    eval_count: z.number().int().nonnegative().nullish(),
    error: z.string().nullish(),
  })
  .passthrough();

/** What the stream has produced so far (kept so an abort can return the partial reply). */
interface Accumulated {
  text: string;
  reasoning: string;
  calls: Map<number, { id: string; name: string; args: string; parsed?: Record<string, unknown> }>;
  finish?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** Prompt tokens the server reports it took from its prompt cache (`usage.prompt_tokens_details.cached_tokens`). */
  cachedTokens?: number;
}

function finishReason(raw: string | undefined, calls: number): ProviderReply["finish_reason"] {
  if (raw === "length") return "length";
  if (raw === "tool_calls" || calls > 0) return "tool_calls";
  if (raw === "content_filter") return "error";
  return "stop";
}

/**
 * Any OpenAI-compatible endpoint (llama.cpp server, LM Studio, vLLM, DeepSeek: SSE) and Ollama
 * (native /api/chat, NDJSON, with num_ctx set): streaming, native tools when the spec says so,
 * reasoning kept out of the user-facing deltas, retries on 429/5xx, timeouts, loopback only
 * unless the config consents, and detection of a prompt the server silently truncated.
 */
export class OpenAiProvider implements Provider<OpenAiSpec> {
  readonly kind = "openai" as const;

  constructor(private readonly options: OpenAiProviderOptions) {}

  async status(spec: OpenAiSpec): Promise<ProviderStatus> {
    if (!spec.allowRemote && !isLoopbackUrl(spec.baseUrl)) {
      return { available: false, loaded: false, detail: `${spec.baseUrl} is not on loopback: set allowRemote: true to consent` };
    }
    try {
      resolveApiKey(spec, this.options.env);
    } catch (error) {
      return { available: false, loaded: false, detail: (error as Error).message };
    }
    return this.probe(spec);
  }

  /** Whether the endpoint answers its model listing (1.5 s budget, no redirects); `loaded` means reachable. */
  private async probe(spec: OpenAiSpec): Promise<ProviderStatus> {
    const url = spec.flavor === "ollama" ? ollamaChatUrl(spec.baseUrl).replace(/\/api\/chat$/, "/api/tags") : `${spec.baseUrl.replace(/\/+$/, "")}/models`;
    try {
      const key = resolveApiKey(spec, this.options.env);
      const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, redirect: "error", signal: AbortSignal.timeout(1500) });
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 500) return { available: false, loaded: false, detail: `${spec.baseUrl} answered HTTP ${response.status}` };
      return { available: true, loaded: true, detail: `${spec.flavor} endpoint ${spec.baseUrl} is reachable` };
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
      return { available: false, loaded: false, detail: `${spec.baseUrl} is not reachable: ${cause?.code ?? cause?.message ?? (error as Error).message}` };
    }
  }

  /**
   * What the endpoint says about its window: Ollama's model info (`<arch>.context_length`, the
   * trained window; the applied num_ctx is what aide sends, checked by the probe's long prompt),
   * llama-server's `/props` n_ctx (the loaded window). Other servers say nothing the probe can trust.
   */
  async describe(spec: OpenAiSpec): Promise<ProviderFacts> {
    assertEndpointAllowed(spec);
    const root = new URL(spec.baseUrl);
    root.pathname = root.pathname.replace(/\/v1\/?$/, "/");
    const base = root.toString().replace(/\/+$/, "");
    const notes: string[] = [];
    let trainedWindow: number | undefined;
    let loadedWindow: number | undefined;
    try {
      if (spec.flavor === "ollama") {
        const show = (await fetchJson(`${base}/api/show`, { method: "POST", body: JSON.stringify({ model: spec.model }), timeoutMs: 3000 })) as { model_info?: Record<string, unknown> };
        const entry = Object.entries(show.model_info ?? {}).find(([key, value]) => key.endsWith(".context_length") && typeof value === "number");
        trainedWindow = entry ? (entry[1] as number) : undefined;
      } else if (spec.flavor === "llamacpp") {
        const props = (await fetchJson(`${base}/props`, { timeoutMs: 3000 })) as { default_generation_settings?: { n_ctx?: unknown } };
        const nCtx = props.default_generation_settings?.n_ctx;
        loadedWindow = typeof nCtx === "number" && nCtx > 0 ? nCtx : undefined;
      }
    } catch (error) {
      notes.push(`the endpoint did not describe its window (${(error as Error).message})`);
    }
    return {
      ...(trainedWindow !== undefined ? { trainedWindow } : {}),
      ...(loadedWindow !== undefined ? { loadedWindow } : {}),
      template: { name: `${spec.flavor} server template`, systemRole: true },
      notes,
    };
  }

  async chat(params: ProviderChatParams<OpenAiSpec>): Promise<ProviderReply> {
    const { spec, request, signal, logger } = params;
    assertEndpointAllowed(spec);
    const key = resolveApiKey(spec, this.options.env);
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    const ollama = spec.flavor === "ollama";
    const acc: Accumulated = { text: "", reasoning: "", calls: new Map() };
    let aborted = false;
    try {
      await postStreaming(
        {
          url: ollama ? ollamaChatUrl(spec.baseUrl) : chatCompletionsUrl(spec.baseUrl),
          body: ollama ? ollamaBody(spec, request) : openAiBody(spec, request),
          headers,
          signal,
          policy: { maxRetries: spec.maxRetries, baseMs: spec.retryBaseMs, timeoutMs: request.timeout_ms ?? spec.timeoutMs },
          onRetry: (info) => logger.warn({ attempt: info.attempt, status: info.status, delayMs: info.delayMs }, "model endpoint busy; retrying"),
        },
        (response, attempt) => (ollama ? this.consumeOllama(response, acc, params, attempt) : this.consumeSse(response, acc, params, attempt)),
      );
    } catch (error) {
      if (!signal.aborted) throw error instanceof AideError ? error : aideError("MODEL_FAILED", { detail: (error as Error).message });
      aborted = true;
    }
    return this.reply(spec, params, acc, aborted);
  }

  private async consumeSse(response: Response, acc: Accumulated, { onDelta }: ProviderChatParams<OpenAiSpec>, attempt: AttemptSignal): Promise<void> {
    for await (const data of readSseData(response)) {
      if (attempt.signal.aborted) break;
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        throw aideError("MODEL_FAILED", { detail: `the endpoint sent an event that is not JSON: ${data.slice(0, 120)}` });
      }
      if (json && typeof json === "object" && "error" in json)
        throw aideError("MODEL_FAILED", { detail: `the endpoint reported: ${JSON.stringify((json as { error: unknown }).error).slice(0, 300)}` });
      const chunk = ChunkSchema.safeParse(json);
      if (!chunk.success) continue;
      if (chunk.data.usage) {
        acc.promptTokens = chunk.data.usage.prompt_tokens ?? acc.promptTokens;
        acc.completionTokens = chunk.data.usage.completion_tokens ?? acc.completionTokens;
        acc.cachedTokens = chunk.data.usage.prompt_tokens_details?.cached_tokens ?? acc.cachedTokens;
      }
      for (const choice of chunk.data.choices) {
        const delta = choice.delta ?? {};
        if (delta.reasoning_content) acc.reasoning += delta.reasoning_content;
        if (delta.content) {
          acc.text += delta.content;
          onDelta(delta.content);
        }
        for (const call of delta.tool_calls ?? []) {
          const entry = acc.calls.get(call.index) ?? { id: "", name: "", args: "" };
          if (call.id) entry.id = call.id;
          if (call.function?.name) entry.name += call.function.name;
          if (call.function?.arguments) entry.args += call.function.arguments;
          acc.calls.set(call.index, entry);
        }
        if (choice.finish_reason) acc.finish = choice.finish_reason;
      }
    }
  }

  private async consumeOllama(response: Response, acc: Accumulated, { onDelta }: ProviderChatParams<OpenAiSpec>, attempt: AttemptSignal): Promise<void> {
    for await (const line of readLines(response)) {
      if (attempt.signal.aborted) break;
      if (line.trim() === "") continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw aideError("MODEL_FAILED", { detail: `Ollama sent a line that is not JSON: ${line.slice(0, 120)}` });
      }
      const parsed = OllamaLineSchema.safeParse(json);
      if (!parsed.success) continue;
      const chunk = parsed.data;
      if (chunk.error) throw aideError("MODEL_FAILED", { detail: `Ollama reported: ${chunk.error.slice(0, 300)}` });
      if (chunk.message?.thinking) acc.reasoning += chunk.message.thinking;
      if (chunk.message?.content) {
        acc.text += chunk.message.content;
        onDelta(chunk.message.content);
      }
      for (const call of chunk.message?.tool_calls ?? []) {
        const index = acc.calls.size;
        acc.calls.set(index, { id: `call_${index}`, name: call.function.name, args: "", parsed: call.function.arguments });
      }
      if (chunk.done) {
        acc.finish = chunk.done_reason ?? "stop";
        if (chunk.prompt_eval_count != null) acc.promptTokens = chunk.prompt_eval_count;
        if (chunk.eval_count != null) acc.completionTokens = chunk.eval_count;
      }
    }
  }

  private reply(spec: OpenAiSpec, { request, logger }: ProviderChatParams<OpenAiSpec>, acc: Accumulated, aborted: boolean): ProviderReply {
    const estimate = estimatePromptTokens(request);
    if (!aborted && acc.promptTokens !== undefined) this.checkTruncation(spec, estimate, acc.promptTokens, logger);
    const toolCalls: NativeToolCall[] = aborted
      ? []
      : [...acc.calls.entries()]
          .sort(([a], [b]) => a - b)
          .map(([index, call]) => {
            let args = call.parsed;
            if (!args) {
              try {
                const value: unknown = call.args.trim() === "" ? {} : JSON.parse(call.args);
                if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
                args = value as Record<string, unknown>;
              } catch (error) {
                throw aideError("MODEL_FAILED", { detail: `the arguments of tool call ${call.name || index} are not a JSON object: ${(error as Error).message}` });
              }
            }
            return { id: call.id || `call_${index}`, name: call.name, arguments: args };
          });
    return {
      text: acc.text,
      ...(acc.reasoning ? { reasoning_content: acc.reasoning } : {}),
      tool_calls: toolCalls,
      finish_reason: aborted ? "abort" : finishReason(acc.finish, toolCalls.length),
      usage: {
        // Without a usage report the counts are estimates (about 4 characters per token).
        prompt_tokens: acc.promptTokens ?? estimate,
        completion_tokens: acc.completionTokens ?? estimateTokens(acc.text + acc.reasoning),
        // Only when the server said how many prompt tokens came from its cache (never guessed).
        ...(acc.cachedTokens !== undefined && acc.promptTokens !== undefined ? { evaluated_prompt_tokens: Math.max(0, acc.promptTokens - acc.cachedTokens) } : {}),
      },
    };
  }

  /**
   * Ollama (and some servers) cut the front of a prompt that exceeds the context and carry on.
   * When the server's prompt count is far below our estimate (under 60%) and the prompt plausibly
   * did not fit (our estimate is at least 80% of the context size), the reply is refused
   * PROMPT_TRUNCATED. The second condition keeps prompt caches (which report fewer evaluated
   * tokens on some servers) from looking like truncation.
   */
  private checkTruncation(spec: OpenAiSpec, estimate: number, actual: number, logger: Logger): void {
    const contextSize = contextSizeOf(spec);
    if (actual < estimate * 0.6 && estimate >= contextSize * 0.8) {
      logger.warn({ estimate, actual, contextSize }, "prompt truncated by the server");
      throw aideError("PROMPT_TRUNCATED", { actual, expected: estimate }, { context_size: contextSize, actual, expected: estimate });
    }
  }

  async close(): Promise<void> {}
}
