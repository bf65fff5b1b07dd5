import type { Logger } from "pino";
import type { ModelChatRequest, ModelChatResult, NativeToolCall } from "@aide/contracts";
import type { ModelSpec } from "./model-spec.js";

/** What one provider call returns; the service adds request_id, model and timings. */
export interface ProviderReply {
  text: string;
  reasoning_content?: string;
  tool_calls: NativeToolCall[];
  finish_reason: ModelChatResult["finish_reason"];
  usage: ModelChatResult["usage"];
}

export interface ProviderChatParams<S extends ModelSpec = ModelSpec> {
  spec: S;
  request: ModelChatRequest;
  /** Aborted by agent.model.abort, the request's timeout or the service draining. */
  signal: AbortSignal;
  /** User-facing text as it is generated (never reasoning). */
  onDelta(text: string): void;
  logger: Logger;
}

export interface ProviderStatus {
  available: boolean;
  loaded: boolean;
  detail?: string;
}

/** What a provider can tell the capability probe about a model beyond what a chat shows. */
export interface ProviderFacts {
  /** The window the model was trained with. */
  trainedWindow?: number;
  /** The window actually loaded / served. */
  loadedWindow?: number;
  template: { name: string; systemRole: boolean };
  notes: string[];
}

/** One provider kind (llama, openai, scripted) serving every spec of that kind. */
export interface Provider<S extends ModelSpec = ModelSpec> {
  readonly kind: S["provider"];
  /** Coalesce this provider's chunks into fewer deltas (local models: one chunk per token). */
  readonly coalesceDeltas?: boolean;
  chat(params: ProviderChatParams<S>): Promise<ProviderReply>;
  status(spec: S): Promise<ProviderStatus>;
  /** Facts for the capability probe (loads a local model); absent for providers with nothing to probe. */
  describe?(spec: S): Promise<ProviderFacts>;
  /** Drops warm sessions whose id starts with the prefix (the probe's, once it is done). */
  dropSessions?(spec: S, prefix: string): Promise<void>;
  close(): Promise<void>;
}

/** Rough token estimate (about 4 characters per token) for providers without a tokenizer. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

export function estimatePromptTokens(request: ModelChatRequest): number {
  let total = 0;
  for (const message of request.messages) total += 4 + estimateTokens(message.content);
  for (const tool of request.tools) total += estimateTokens(JSON.stringify(tool));
  return total;
}

/** Resolves true after ms, or false as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
