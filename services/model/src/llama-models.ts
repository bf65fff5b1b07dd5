import { freemem } from "node:os";
import type { Logger } from "pino";
import type { ChatWrapper, Llama, LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel } from "node-llama-cpp";
import { aideError } from "@aide/contracts";
import type { LlamaSpec } from "./model-spec.js";
import { requireModelFile } from "./model-file.js";
import { SessionPool } from "./llama-session-pool.js";
import { PrefixCache } from "./llama-prefix-cache.js";

export interface LoadedModel {
  spec: LlamaSpec;
  path: string;
  bytes: number;
  model: LlamaModel;
  context: LlamaContext;
  chatWrapper: ChatWrapper;
  pool: SessionPool<LlamaContextSequence>;
  threads: number;
  contextSize: number;
  grammars: Map<string, Promise<LlamaGrammar>>;
  lastUsed: number;
  active: number;
  /** Saved states of first-turn prompts, loaded by new sessions that share their prefix (absent: off). */
  prefixes?: PrefixCache;
}

export interface LlamaModelsOptions {
  home: string;
  logger: Logger;
  /** Threads when the spec does not say (see llama-threads.ts). */
  defaultThreads: number;
  /** Models kept loaded at once; past it the least recently used idle one is unloaded. */
  maxLoaded: number;
  /** The llama.cpp binding, created once on first use (a seam for tests and the benchmark). */
  getLlama: () => Promise<Llama>;
  /** Keep a prompt-prefix cache per loaded model (llama-prefix-cache.ts). */
  prefixCache?: boolean;
}

/**
 * Loaded local models by spec id: each with one context holding `maxSessions` sequences (one per
 * warm session). Loading is deduplicated; when more than `maxLoaded` models are loaded, or free
 * memory is short of the next model's size, the least recently used idle model is unloaded.
 */
export class LlamaModels {
  private readonly loaded = new Map<string, Promise<LoadedModel>>();
  private readonly ready = new Map<string, LoadedModel>();
  private clock = 0;
  private llama?: Promise<Llama>;

  constructor(private readonly options: LlamaModelsOptions) {}

  binding(): Promise<Llama> {
    this.llama ??= this.options.getLlama();
    return this.llama;
  }

  isLoaded(id: string): boolean {
    return this.ready.has(id);
  }

  get(id: string): LoadedModel | undefined {
    return this.ready.get(id);
  }

  async acquire(spec: LlamaSpec): Promise<LoadedModel> {
    let pending = this.loaded.get(spec.id);
    if (!pending) {
      pending = this.load(spec);
      this.loaded.set(spec.id, pending);
      pending.catch(() => this.loaded.delete(spec.id));
    }
    const model = await pending;
    model.lastUsed = ++this.clock;
    return model;
  }

  private async load(spec: LlamaSpec): Promise<LoadedModel> {
    const { path, bytes } = requireModelFile(spec, this.options.home);
    await this.makeRoom(spec.id, bytes);
    const llama = await this.binding();
    const logger = this.options.logger.child({ model: spec.id });
    const started = performance.now();
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: path, gpuLayers: spec.gpuLayers });
    } catch (error) {
      throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: `cannot load ${path}: ${(error as Error).message}` });
    }
    const threads = spec.threads ?? this.options.defaultThreads;
    const contextSize = Math.min(spec.contextSize ?? spec.contextBudget, model.trainContextSize);
    // Flash attention on unless the spec says otherwise (the library's default is off; measured
    // 15-30 % less CPU per prompt and generated token on both real models, same outputs' shape).
    const flashAttention = spec.flashAttention ?? true;
    const context = await model.createContext({ contextSize, sequences: spec.maxSessions, threads, flashAttention });
    const { resolveChatWrapper } = await import("node-llama-cpp");
    const chatWrapper = resolveChatWrapper(model);
    logger.info(
      {
        path,
        threads,
        flashAttention: context.flashAttention,
        contextSize: context.contextSize,
        sessions: spec.maxSessions,
        chatWrapper: chatWrapper.wrapperName,
        ms: Math.round(performance.now() - started),
      },
      "model loaded",
    );
    const loaded: LoadedModel = {
      spec,
      path,
      bytes,
      model,
      context,
      chatWrapper,
      threads,
      contextSize: context.contextSize,
      pool: new SessionPool(context),
      grammars: new Map(),
      lastUsed: ++this.clock,
      active: 0,
      ...(this.options.prefixCache === true ? { prefixes: new PrefixCache({ logger }) } : {}),
    };
    this.ready.set(spec.id, loaded);
    return loaded;
  }

  private async makeRoom(loadingId: string, bytes: number): Promise<void> {
    const needsRoom = () => this.ready.size >= this.options.maxLoaded || freemem() < bytes * 1.2;
    while (needsRoom()) {
      const idle = [...this.ready.values()].filter((m) => m.spec.id !== loadingId && m.active === 0 && !m.pool.anyBusy());
      if (idle.length === 0) return;
      idle.sort((a, b) => a.lastUsed - b.lastUsed);
      await this.unload(idle[0].spec.id);
    }
  }

  async unload(id: string): Promise<void> {
    const model = this.ready.get(id);
    this.ready.delete(id);
    this.loaded.delete(id);
    if (!model) return;
    this.options.logger.info({ model: id }, "model unloaded");
    await model.context.dispose().catch(() => undefined);
    await model.model.dispose().catch(() => undefined);
    model.prefixes?.dispose();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.ready.keys()].map((id) => this.unload(id)));
    if (this.llama) await (await this.llama).dispose().catch(() => undefined);
  }
}
