import { existsSync } from "node:fs";
import type { Logger } from "pino";
import type { Llama, LlamaContextSequence, LlamaGrammar, Token } from "node-llama-cpp";
import { aideError, AideError, type ModelChatRequest } from "@aide/contracts";
import type { LlamaSpec } from "./model-spec.js";
import { modelFilePath } from "./model-file.js";
import { LlamaModels, type LoadedModel } from "./llama-models.js";
import { alignWithCache, renderPrompt } from "./llama-prompt.js";
import { parseNativeToolCalls } from "./native-tool-calls.js";
import { requestGrammar } from "./request-grammar.js";

export { requestGrammar } from "./request-grammar.js";
import { ThinkSplitter } from "./think-splitter.js";
import type { Provider, ProviderChatParams, ProviderFacts, ProviderReply, ProviderStatus } from "./provider.js";

export interface LlamaProviderOptions {
  home: string;
  logger: Logger;
  defaultThreads: number;
  maxLoaded?: number;
  /** Default sampling temperature when the request gives none. */
  temperature?: number;
  getLlama?: () => Promise<Llama>;
  /** A first turn loads the saved state of an earlier session's shared prompt prefix (default on). */
  prefixCache?: boolean;
}

const GRAMMAR_CACHE = 16;

/**
 * The prebuilt binary shipped in the npm package: never build, never download. CPU unless
 * `gpu` is "auto" (AIDE_MODEL_GPU=auto: the CUDA/Vulkan prebuilt binaries when a GPU is usable;
 * then the specs' gpuLayers apply).
 */
export function llamaLoader(gpu: "auto" | false = false): () => Promise<Llama> {
  return async () => {
    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    return getLlama({ gpu, build: "never", logLevel: LlamaLogLevel.error });
  };
}

/**
 * Local GGUF models through node-llama-cpp: the GGUF's chat template, one warm context sequence
 * per session (only new tokens are evaluated; the context never shifts — a prompt that does not
 * fit is refused CONTEXT_FULL so the orchestrator compacts instead of the library silently
 * rewriting history), grammar-constrained XML tool calls, abort mid-generation.
 */
export class LlamaProvider implements Provider<LlamaSpec> {
  readonly kind = "llama" as const;
  readonly coalesceDeltas = true;
  readonly models: LlamaModels;

  constructor(private readonly options: LlamaProviderOptions) {
    this.models = new LlamaModels({
      home: options.home,
      logger: options.logger.child({ module: "llama" }),
      defaultThreads: options.defaultThreads,
      maxLoaded: options.maxLoaded ?? 2,
      getLlama: options.getLlama ?? llamaLoader(false),
      prefixCache: options.prefixCache ?? true,
    });
  }

  async status(spec: LlamaSpec): Promise<ProviderStatus> {
    const loaded = this.models.get(spec.id);
    if (loaded)
      return {
        available: true,
        loaded: true,
        detail: `${loaded.path} (threads ${loaded.threads}, context ${loaded.contextSize}, flash attention ${loaded.context.flashAttention ? "on" : "off"}, sessions ${loaded.pool.ids().length}/${spec.maxSessions})`,
      };
    const path = modelFilePath(spec, this.options.home);
    if (existsSync(path)) return { available: true, loaded: false, detail: path };
    return { available: false, loaded: false, detail: spec.uri ? `not pulled yet: aide models pull ${spec.id}` : `no GGUF file at ${path}` };
  }

  /** Loads the model: its trained window, the context actually created, the chat template's roles. */
  async describe(spec: LlamaSpec): Promise<ProviderFacts> {
    const loaded = await this.models.acquire(spec);
    const settings = loaded.chatWrapper.settings as { supportsSystemMessages?: boolean };
    return {
      trainedWindow: loaded.model.trainContextSize,
      loadedWindow: loaded.contextSize,
      template: { name: loaded.chatWrapper.wrapperName, systemRole: settings.supportsSystemMessages !== false },
      notes: [`${loaded.path}: ${loaded.threads} thread(s)`],
    };
  }

  async dropSessions(spec: LlamaSpec, prefix: string): Promise<void> {
    const loaded = this.models.get(spec.id);
    for (const id of loaded?.pool.ids() ?? []) if (id.startsWith(prefix)) loaded?.pool.drop(id);
  }

  async chat(params: ProviderChatParams<LlamaSpec>): Promise<ProviderReply> {
    const loaded = await this.models.acquire(params.spec);
    loaded.active++;
    try {
      const work = (sequence: LlamaContextSequence) => this.generate(loaded, sequence, params);
      // A one-off (the compaction summary) must not overwrite the session's warm sequence.
      if (params.request.one_off === true) {
        return await loaded.pool.useOneOff(params.request.session, work, () =>
          params.logger.warn({ sessions: params.spec.maxSessions }, "no free sequence for a one-off request: it runs on the session's own, whose cache is lost"),
        );
      }
      return await loaded.pool.use(params.request.session, work);
    } finally {
      loaded.active--;
    }
  }

  private async grammar(loaded: LoadedModel, gbnf: string): Promise<LlamaGrammar> {
    let grammar = loaded.grammars.get(gbnf);
    if (grammar) {
      loaded.grammars.delete(gbnf);
      loaded.grammars.set(gbnf, grammar);
      return grammar;
    }
    const llama = await this.models.binding();
    grammar = llama.createGrammar({ grammar: gbnf });
    grammar.catch(() => loaded.grammars.delete(gbnf));
    loaded.grammars.set(gbnf, grammar);
    while (loaded.grammars.size > GRAMMAR_CACHE) loaded.grammars.delete(loaded.grammars.keys().next().value as string);
    try {
      return await grammar;
    } catch (error) {
      throw aideError("MODEL_FAILED", { detail: `the tool-call grammar was refused: ${(error as Error).message}` });
    }
  }

  private async generate(loaded: LoadedModel, sequence: LlamaContextSequence, { spec, request, signal, onDelta, logger }: ProviderChatParams<LlamaSpec>): Promise<ProviderReply> {
    const { model } = loaded;
    // The model's own call format: the template lists the tools and the reply's calls are parsed here.
    const native = spec.nativeTools && request.tools.length > 0 && request.tool_choice !== "none";
    const rendered = renderPrompt(model, loaded.chatWrapper, request.messages, native ? request.tools : undefined);
    const bos = model.tokens.bos;
    const prependsBos = model.tokens.shouldPrependBosToken && bos != null;
    const wanted: Token[] = prependsBos && rendered.tokens[0] !== bos ? [bos as Token, ...rendered.tokens] : rendered.tokens;
    // A fresh sequence (a session's first turn) starts from an earlier session's saved prefix.
    const fresh = sequence.nextTokenIndex === 0;
    const restored = loaded.prefixes ? await loaded.prefixes.restore(sequence, wanted) : 0;
    const aligned = alignWithCache(sequence.contextTokens, wanted, model);
    const input = prependsBos ? aligned.slice(1) : aligned;
    const contextSize = sequence.contextSize;
    if (aligned.length + 1 >= contextSize) throw aideError("CONTEXT_FULL", { needed: aligned.length + 1, limit: contextSize }, { needed: aligned.length + 1, limit: contextSize });
    const maxTokens = Math.min(request.max_tokens ?? spec.maxOutputTokens, contextSize - aligned.length - 1);
    // The grammar's budget is the cap this reply really has (less than max_tokens when the window is nearly full), so its calls close within it.
    const gbnf = native ? undefined : requestGrammar(spec, { ...request, max_tokens: maxTokens });
    const grammar = gbnf === undefined ? undefined : await this.grammar(loaded, gbnf);
    if (signal.aborted) return { text: "", tool_calls: [], finish_reason: "abort", usage: { prompt_tokens: aligned.length, completion_tokens: 0, evaluated_prompt_tokens: 0 } };

    const { LlamaCompletion } = await import("node-llama-cpp");
    const before = sequence.tokenMeter.getState();
    // A session's first turn (not a one-off) is what the prefix cache learns from.
    const prefixes = fresh && request.one_off !== true ? loaded.prefixes : undefined;
    // A sequence that cannot erase a tail (sliding-window attention) saves the prefix it shares with an earlier first turn.
    const extended = prefixes ? await prefixes.extend(sequence, aligned, signal) : 0;
    const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
    // A thinking model's <think>…</think> goes to reasoning_content, never to the deltas.
    const splitter = spec.thinking ? new ThinkSplitter(onDelta) : undefined;
    let response: Awaited<ReturnType<typeof completion.generateCompletionWithMeta>>;
    try {
      response = await completion.generateCompletionWithMeta(input, {
        onTextChunk: splitter ? (chunk) => splitter.push(chunk) : onDelta,
        signal,
        stopOnAbortSignal: true,
        maxTokens,
        temperature: request.temperature ?? this.options.temperature ?? 0.2,
        ...(request.seed !== undefined ? { seed: request.seed } : {}),
        ...(grammar ? { grammar } : {}),
        customStopTriggers: rendered.stopTriggers,
        // No shift, and a shift reserve of one token: with the library's default reserve (10% of
        // the context) a prompt near the limit is silently cut at the front. The CONTEXT_FULL
        // check above guarantees the whole prompt fits.
        disableContextShift: true,
        contextShiftSize: 1,
      });
    } catch (error) {
      if (signal.aborted) return { text: "", tool_calls: [], finish_reason: "abort", usage: { prompt_tokens: aligned.length, completion_tokens: 0 } };
      if (error instanceof AideError) throw error;
      logger.warn({ err: error }, "generation failed");
      throw aideError("MODEL_FAILED", { detail: (error as Error).message });
    } finally {
      completion.dispose({ disposeSequence: false });
    }
    const after = sequence.tokenMeter.getState();
    const stop = response.metadata.stopReason;
    if (prefixes && stop !== "abort") await prefixes.remember(sequence, aligned);
    if (restored > 0 || extended > 0)
      logger.debug({ restored, extended, prompt: aligned.length }, restored > 0 ? "prompt prefix loaded from the prefix cache" : "shared prompt prefix evaluated and saved");
    // The library's TokenMeter counts a decoded token whose logits are read as "output": that is
    // every sampled token fed back plus the prompt's last token (whose logits give the first
    // sampled token). So the prompt tokens evaluated are the "input" count plus that one.
    const outputDelta = after.usedOutputTokens - before.usedOutputTokens;
    const evaluated = after.usedInputTokens - before.usedInputTokens + (outputDelta > 0 ? 1 : 0);
    splitter?.end();
    const split = spec.thinking ? ThinkSplitter.split(response.response) : { text: response.response, reasoning: "" };
    const parsed = native ? parseNativeToolCalls(split.text, (index) => `${request.request_id}-${index}`) : { text: split.text, calls: [] };
    const { reasoning } = split;
    return {
      text: parsed.text,
      ...(reasoning ? { reasoning_content: reasoning } : {}),
      tool_calls: parsed.calls,
      finish_reason: stop === "abort" ? "abort" : stop === "maxTokens" ? "length" : parsed.calls.length > 0 ? "tool_calls" : "stop",
      usage: {
        prompt_tokens: aligned.length,
        completion_tokens: outputDelta,
        evaluated_prompt_tokens: evaluated,
      },
    };
  }

  async close(): Promise<void> {
    await this.models.close();
  }
}
