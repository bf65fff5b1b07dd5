import type { ChatMessage, ChatTool, ModelChatRequest } from "@aide/contracts";
import type { OpenAiSpec } from "./model-spec.js";
import { requestGrammar } from "./request-grammar.js";

/**
 * Request bodies for OpenAI-compatible chat completions and for Ollama's native /api/chat (the
 * only Ollama endpoint that honours a per-request context size, `options.num_ctx`; its
 * OpenAI-compatible endpoint ignores it).
 */
type WireMessage = Record<string, unknown>;

function wireMessages(messages: ChatMessage[], spec: OpenAiSpec, ollama: boolean): WireMessage[] {
  return messages.map((message) => {
    const wire: WireMessage = { role: message.role, content: message.content };
    if (message.role === "assistant") {
      // Reasoning goes back only where the provider needs it across tool turns (DeepSeek thinking).
      if (spec.keepReasoning && message.reasoning_content !== undefined) wire.reasoning_content = message.reasoning_content;
      if (message.tool_calls && message.tool_calls.length > 0) {
        wire.tool_calls = message.tool_calls.map((call) =>
          ollama ? { function: { name: call.name, arguments: call.arguments } } : { id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } },
        );
      }
    }
    if (message.role === "tool") {
      if (message.tool_call_id !== undefined) wire.tool_call_id = message.tool_call_id;
      if (!spec.nativeTools) return { role: "user", content: message.content };
    }
    return wire;
  });
}

function wireTools(tools: ChatTool[]): unknown[] {
  return tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}

export function contextSizeOf(spec: OpenAiSpec): number {
  return spec.contextBudget;
}

export function openAiBody(spec: OpenAiSpec, request: ModelChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: spec.model,
    messages: wireMessages(request.messages, spec, false),
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.max_tokens ?? spec.maxOutputTokens,
  };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.seed !== undefined) body.seed = request.seed;
  if (spec.reasoningEffort !== undefined) body.reasoning_effort = spec.reasoningEffort;
  if (spec.nativeTools && request.tools.length > 0 && request.tool_choice !== "none") {
    body.tools = wireTools(request.tools);
    body.tool_choice = request.tool_choice ?? "auto";
  }
  if (spec.flavor === "llamacpp") {
    // llama-server keeps the slot's KV cache for the next request with the same prefix, and takes
    // the same GBNF the in-process provider uses for the XML text protocol (on unless the request
    // turns it off; native tools bring the server's own constraint instead).
    body.cache_prompt = true;
    const grammar = spec.nativeTools ? undefined : requestGrammar({ grammar: true, maxOutputTokens: spec.maxOutputTokens, thinking: spec.thinking }, request);
    if (grammar !== undefined) body.grammar = grammar;
  }
  return body;
}

export function ollamaBody(spec: OpenAiSpec, request: ModelChatRequest): Record<string, unknown> {
  const options: Record<string, unknown> = { num_ctx: contextSizeOf(spec), num_predict: request.max_tokens ?? spec.maxOutputTokens };
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.seed !== undefined) options.seed = request.seed;
  const body: Record<string, unknown> = { model: spec.model, messages: wireMessages(request.messages, spec, true), stream: true, options };
  if (spec.thinking) body.think = true;
  if (spec.nativeTools && request.tools.length > 0 && request.tool_choice !== "none") body.tools = wireTools(request.tools);
  return body;
}

/** `http://host:11434/v1` → `http://host:11434/api/chat`. */
export function ollamaChatUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.pathname = url.pathname.replace(/\/v1\/?$/, "/").replace(/\/?$/, "/") + "api/chat";
  url.pathname = url.pathname.replace(/\/+/g, "/");
  return url.toString();
}

export function chatCompletionsUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "") + "/chat/completions";
}
