import type { ChatHistoryItem, ChatWrapper, LlamaModel, Token } from "node-llama-cpp";
import type { ChatMessage } from "@aide/contracts";

/**
 * Turns the request's messages into node-llama-cpp chat history, ending with the empty model turn
 * to be generated. Tool results (role "tool") go back as user turns: local models speak the XML
 * text protocol, where a tool result is just the next message.
 */
export function toChatHistory(messages: ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  for (const message of messages) {
    if (message.role === "system") history.push({ type: "system", text: message.content });
    else if (message.role === "assistant") history.push({ type: "model", response: [message.content] });
    else if (message.role === "tool") history.push({ type: "user", text: `Tool result${message.tool_call_id ? ` (${message.tool_call_id})` : ""}:\n${message.content}` });
    else history.push({ type: "user", text: message.content });
  }
  history.push({ type: "model", response: [] });
  return history;
}

export interface RenderedPrompt {
  tokens: Token[];
  stopTriggers: ReturnType<ChatWrapper["generateContextState"]>["stopGenerationTriggers"];
}

/** Renders the history with the GGUF's chat template (the chat wrapper) and tokenizes it. */
export function renderPrompt(model: LlamaModel, chatWrapper: ChatWrapper, messages: ChatMessage[]): RenderedPrompt {
  const state = chatWrapper.generateContextState({ chatHistory: toChatHistory(messages) });
  return { tokens: state.contextText.tokenize(model.tokenizer), stopTriggers: state.stopGenerationTriggers };
}

export interface TokenCodec {
  detokenize(tokens: readonly Token[], specialTokens?: boolean, lastTokens?: readonly Token[]): string;
  tokenize(text: string, specialTokens?: boolean, options?: "trimLeadingSpace"): Token[];
}

/**
 * Keeps the warm cache when the new prompt only re-tokenizes what the sequence already holds.
 *
 * A generated reply is a sampled token sequence; when the orchestrator sends it back as text, the
 * tokenizer splits it differently, so a token-level prefix match would stop at the reply's first
 * token and re-evaluate everything after it. Here the part of the cache after the first token
 * mismatch is compared as text: when the new prompt's text continues it, the prompt becomes the
 * cached tokens plus only the new text's tokens, and only those are evaluated.
 */
export function alignWithCache(cached: readonly Token[], wanted: Token[], codec: TokenCodec): Token[] {
  let common = 0;
  while (common < cached.length && common < wanted.length && cached[common] === wanted[common]) common++;
  if (common === cached.length || common === wanted.length) return wanted;
  const context = cached.slice(Math.max(0, common - 16), common);
  const cachedText = codec.detokenize(cached.slice(common), true, context);
  const wantedText = codec.detokenize(wanted.slice(common), true, context);
  if (cachedText.length === 0 || !wantedText.startsWith(cachedText)) return wanted;
  const rest = wantedText.slice(cachedText.length);
  if (rest.length === 0) return [...cached];
  return [...cached, ...codec.tokenize(rest, true, "trimLeadingSpace")];
}
