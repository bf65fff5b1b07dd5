import type { ChatHistoryItem, ChatModelFunctions, ChatWrapper, LlamaModel, Token } from "node-llama-cpp";
import type { ChatMessage, ChatTool } from "@aide/contracts";

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

/**
 * The same history for a model that calls tools in its own format (`tool_format: native`): an
 * assistant message's calls become the template's function calls, each with the result of the
 * tool message answering it, so the chat template renders them the way the model was trained
 * (Qwen: `<tool_call>` JSON, results in `<tool_response>`). A model turn that ends in calls is
 * continued by the next generation; otherwise an empty model turn is opened.
 */
export function toNativeChatHistory(messages: ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const results = new Map(messages.filter((message) => message.role === "tool" && message.tool_call_id !== undefined).map((message) => [message.tool_call_id as string, message.content]));
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === "system") history.push({ type: "system", text: message.content });
    else if (message.role === "user") history.push({ type: "user", text: message.content });
    else if (message.role === "assistant") {
      const calls = (message.tool_calls ?? []).map((call, index) => {
        answered.add(call.id);
        return { type: "functionCall" as const, name: call.name, params: call.arguments, result: results.get(call.id) ?? "(no result)", startsNewChunk: index === 0 };
      });
      history.push({ type: "model", response: [...(message.content.trim() !== "" ? [message.content] : []), ...calls] });
    } else if (message.tool_call_id === undefined || !answered.has(message.tool_call_id)) {
      history.push({ type: "user", text: `Tool result:\n${message.content}` });
    }
  }
  const last = history.at(-1);
  const continues = last?.type === "model" && last.response.some((item) => typeof item !== "string");
  if (!continues) history.push({ type: "model", response: [] });
  return history;
}

/** The tools as the chat template lists them (name, description, JSON schema of the arguments). */
export function templateFunctions(tools: ChatTool[]): ChatModelFunctions {
  return Object.fromEntries(tools.map((tool) => [tool.name, { description: tool.description, params: tool.parameters as ChatModelFunctions[string]["params"] }]));
}

/**
 * A view of the chat wrapper that renders a string tool result as its text: the library's own
 * rendering JSON-encodes it, so a file's lines reached the model as one line of `\n` escapes.
 */
function rawResults(chatWrapper: ChatWrapper): ChatWrapper {
  const internal = chatWrapper as unknown as { _generateFunctionCallResult?: (name: string, params: unknown, raw: string) => unknown };
  if (typeof internal._generateFunctionCallResult !== "function") return chatWrapper;
  const view = Object.create(chatWrapper) as ChatWrapper;
  view.generateFunctionCallResult = ((name: string, params: unknown, result: unknown) =>
    internal._generateFunctionCallResult!.call(chatWrapper, name, params, typeof result === "string" ? result : JSON.stringify(result ?? null))) as ChatWrapper["generateFunctionCallResult"];
  return view;
}

export interface RenderedPrompt {
  tokens: Token[];
  stopTriggers: ReturnType<ChatWrapper["generateContextState"]>["stopGenerationTriggers"];
}

/**
 * Renders the history with the GGUF's chat template (the chat wrapper) and tokenizes it; with
 * `tools`, in the model's own tool-call format, the template listing the tools.
 */
export function renderPrompt(model: LlamaModel, chatWrapper: ChatWrapper, messages: ChatMessage[], tools?: ChatTool[]): RenderedPrompt {
  const state =
    tools === undefined
      ? chatWrapper.generateContextState({ chatHistory: toChatHistory(messages) })
      : rawResults(chatWrapper).generateContextState({ chatHistory: toNativeChatHistory(messages), availableFunctions: templateFunctions(tools) });
  return { tokens: state.contextText.tokenize(model.tokenizer), stopTriggers: state.stopGenerationTriggers };
}

export interface TokenCodec {
  detokenize(tokens: readonly Token[], specialTokens?: boolean, lastTokens?: readonly Token[]): string;
  tokenize(text: string, specialTokens?: boolean, options?: "trimLeadingSpace"): Token[];
}

/** Character offsets after each token of `tokens` (detokenized one by one, with context). */
function tokenEnds(codec: TokenCodec, tokens: readonly Token[], start: number, before: readonly Token[], limit: number): number[] {
  const ends: number[] = [];
  let length = 0;
  for (let index = start; index < tokens.length && length <= limit; index++) {
    const context = index - start >= 8 ? tokens.slice(index - 8, index) : [...before, ...tokens.slice(start, index)].slice(-8);
    length += codec.detokenize([tokens[index]], true, context).length;
    ends.push(length);
  }
  return ends;
}

/**
 * Keeps the warm cache when the new prompt only re-tokenizes what the sequence already holds.
 *
 * A generated reply is a sampled token sequence; when the orchestrator sends it back as text, the
 * tokenizer splits it differently (and the chat template may trim its trailing space), so a
 * token-level prefix match would stop at the reply's first token and re-evaluate everything after
 * it. Here the cached tokens after the first mismatch are compared as text with the new prompt:
 * the longest run of them whose text the new prompt repeats, ending where a token of the new
 * prompt also ends, is kept; the prompt continues with the new prompt's own tokens from there.
 * So only the new text is evaluated, and the part after the reply keeps its canonical tokens
 * (the next turn then matches it token for token).
 */
export function alignWithCache(cached: readonly Token[], wanted: Token[], codec: TokenCodec): Token[] {
  let common = 0;
  while (common < cached.length && common < wanted.length && cached[common] === wanted[common]) common++;
  if (common === cached.length || common === wanted.length) return wanted;
  const before = cached.slice(Math.max(0, common - 8), common);
  const cachedText = codec.detokenize(cached.slice(common), true, before);
  const wantedText = codec.detokenize(wanted.slice(common), true, before);
  let same = 0;
  while (same < cachedText.length && same < wantedText.length && cachedText[same] === wantedText[same]) same++;
  if (same === 0) return wanted;
  const cachedEnds = tokenEnds(codec, cached, common, before, same);
  const wantedEnds = new Map(tokenEnds(codec, wanted, common, before, same).map((end, index) => [end, common + index + 1]));
  for (let k = cachedEnds.length - 1; k >= 0; k--) {
    const end = cachedEnds[k];
    if (end > same) continue;
    const resume = wantedEnds.get(end);
    if (resume === undefined) continue;
    const keep = common + k + 1;
    // Verify with whole-slice detokenization before trusting the per-token offsets.
    if (codec.detokenize(cached.slice(common, keep), true, before) !== codec.detokenize(wanted.slice(common, resume), true, before)) break;
    return [...cached.slice(0, keep), ...wanted.slice(resume)];
  }
  return wanted;
}
