import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { AideError, aideError, modelSettingsOf, type ModelChatRequest, type ModelChatResult, type ModelDelta, type ModelInfo, type ModelProbeProgress, type ModelProfile } from "@aide/contracts";
import type { ModelRegistry, ModelSpec } from "./model-spec.js";
import type { Provider, ProviderReply } from "./provider.js";
import { InFlight } from "./in-flight.js";
import { DeltaBatcher } from "./delta-batcher.js";
import { probeModel } from "./probe/probe-model.js";
import { profileKey, type ProfileStore } from "./probe/profile-store.js";
import { isLoopbackUrl } from "./endpoint-policy.js";

export type ProviderSet = { [K in ModelSpec["provider"]]?: Provider<Extract<ModelSpec, { provider: K }>> };

export interface ModelEngineDeps {
  registry: ModelRegistry;
  providers: ProviderSet;
  /** Sends one delta to agent.model.delta.<request_id>. */
  publishDelta(delta: ModelDelta): void;
  logger: Logger;
  /** Deltas are coalesced over this window (ms); 0 publishes every chunk as it comes. Default 25. */
  deltaIntervalMs?: number;
  now?: () => number;
  /** `$AIDE_HOME` (model files, for the probe's cache keys). */
  home?: string;
  /** Where capability profiles are cached; without it every probe runs afresh. */
  profiles?: ProfileStore;
  /** Tool-call trials per arm when a probe request does not say. Default 3. */
  probeTrials?: number;
  /** Subject-safe ids for the probe's requests and sessions (default: random). */
  generateId?: () => string;
  /** The wall clock (a profile's probed_at). */
  clock?: () => Date;
}

/**
 * The model service's logic, independent of the bus: resolves the ModelSpec, runs the provider
 * with an abort signal (agent.model.abort, the request's timeout, the service draining), streams
 * deltas and assembles the final reply with timings.
 */
export class ModelEngine {
  private readonly inFlight = new InFlight();
  private readonly now: () => number;
  private registry: ModelRegistry;
  /** Running probes by profile key, with the progress listeners of every caller waiting on each. */
  private readonly probes = new Map<string, { promise: Promise<ModelProfile>; listeners: Set<(progress: ModelProbeProgress) => void> }>();

  constructor(private readonly deps: ModelEngineDeps) {
    this.now = deps.now ?? (() => performance.now());
    this.registry = deps.registry;
  }

  get currentRegistry(): ModelRegistry {
    return this.registry;
  }

  /** Swaps the registry (agent.model.reload); chats in flight keep the spec they resolved. */
  setRegistry(registry: ModelRegistry): void {
    this.registry = registry;
  }

  resolve(id: string | undefined): ModelSpec {
    if (this.registry.models.length === 0) throw aideError("NO_MODEL", { detail: this.registry.hint ?? "configure one with `aide models add`" });
    const wanted = id ?? this.registry.default;
    const spec = this.registry.models.find((model) => model.id === wanted);
    if (!spec) throw aideError("MODEL_NOT_FOUND", { model: wanted, known: this.registry.models.map((model) => model.id).join(", ") });
    return spec;
  }

  private provider(spec: ModelSpec): Provider {
    const provider = this.deps.providers[spec.provider] as Provider | undefined;
    if (!provider) throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: `the ${spec.provider} provider is not enabled in this service` });
    return provider;
  }

  async chat(request: ModelChatRequest, serviceSignal?: AbortSignal): Promise<ModelChatResult> {
    const spec = this.effective(this.resolve(request.model));
    // A run that names its tool-call format (an eval arm, a model's record) wins over the entry's.
    const formatted = request.tool_format === undefined ? spec : { ...spec, nativeTools: request.tool_format === "native" };
    return this.chatWith(formatted, request, serviceSignal);
  }

  /**
   * A discovered endpoint whose probe found native tool calls reliable uses them; a configured
   * entry keeps what its file says (configured entries win).
   */
  private effective(spec: ModelSpec): ModelSpec {
    const origin = this.registry.origins?.[spec.id];
    // Only a discovered endpoint's probe can change the format: its profile is looked up only then.
    if (spec.provider !== "openai" || spec.nativeTools || origin !== "discovered") return spec;
    const calls = modelSettingsOf({ profile: this.cachedProfile(spec), provider: spec.provider, nativeTools: spec.nativeTools, origin }).tool_calls;
    return calls.value === "native" ? { ...spec, nativeTools: true } : spec;
  }

  /** A chat against a given spec (the probe varies one field of a registry entry). */
  async chatWith(spec: ModelSpec, request: ModelChatRequest, serviceSignal?: AbortSignal): Promise<ModelChatResult> {
    const provider = this.provider(spec);
    const started = this.now();
    const controller = this.inFlight.start(request.request_id);
    let timedOut = false;
    const timer =
      request.timeout_ms !== undefined
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, request.timeout_ms)
        : undefined;
    const onServiceAbort = () => controller.abort();
    serviceSignal?.addEventListener("abort", onServiceAbort, { once: true });
    let firstTokenMs: number | undefined;
    let index = 0;
    const logger = this.deps.logger.child({ request: request.request_id, session: request.session, model: spec.id });
    const interval = provider.coalesceDeltas ? (this.deps.deltaIntervalMs ?? 25) : 0;
    const batcher = new DeltaBatcher((text) => this.deps.publishDelta({ request_id: request.request_id, index: index++, text }), interval, interval === 0 ? 1 : 512);
    try {
      const reply: ProviderReply = await provider.chat({
        spec,
        request,
        signal: controller.signal,
        logger,
        onDelta: (text) => {
          if (text.length === 0) return;
          firstTokenMs ??= this.now() - started;
          if (request.stream) batcher.push(text);
        },
      });
      batcher.flush();
      if (timedOut) throw aideError("TIMEOUT", { ms: request.timeout_ms ?? 0 });
      const totalMs = this.now() - started;
      logger.debug({ finish: reply.finish_reason, usage: reply.usage, ms: Math.round(totalMs) }, "chat done");
      return {
        request_id: request.request_id,
        model: spec.id,
        ...reply,
        timings: firstTokenMs === undefined ? { total_ms: totalMs } : { total_ms: totalMs, first_token_ms: firstTokenMs },
      };
    } catch (error) {
      if (timedOut && !(error instanceof AideError && error.code === "TIMEOUT")) throw aideError("TIMEOUT", { ms: request.timeout_ms ?? 0 });
      throw error;
    } finally {
      batcher.flush();
      if (timer) clearTimeout(timer);
      serviceSignal?.removeEventListener("abort", onServiceAbort);
      this.inFlight.finish(request.request_id, controller);
    }
  }

  abort(requestId: string): { aborted: boolean } {
    return { aborted: this.inFlight.abort(requestId) };
  }

  async list(): Promise<{ models: ModelInfo[]; default: string; hint?: string }> {
    const registry = this.registry;
    const models = await Promise.all(registry.models.map((spec) => this.info(spec)));
    return { models, default: registry.default, ...(registry.hint !== undefined ? { hint: registry.hint } : {}) };
  }

  private cachedProfile(spec: ModelSpec): ModelProfile | undefined {
    const key = this.deps.profiles && this.deps.home !== undefined ? profileKey(spec, this.deps.home) : undefined;
    return key === undefined ? undefined : this.deps.profiles?.get(key);
  }

  /**
   * The model's capability profile: the cached one when it still matches the file or endpoint,
   * else a probe (one at a time per model; concurrent callers share it), cached for next time.
   */
  async probe(
    id: string | undefined,
    options: { refresh?: boolean; trials?: number; automatic?: boolean; onProgress?: (progress: ModelProbeProgress) => void } = {},
    signal?: AbortSignal,
  ): Promise<ModelProfile> {
    const spec = this.resolve(id);
    if (spec.provider === "scripted") throw aideError("VALIDATION", { detail: `${spec.id} replays a recorded transcript: there is nothing to probe` });
    const key = this.deps.home !== undefined ? profileKey(spec, this.deps.home) : `${spec.provider}:${spec.id}`;
    if (key === undefined) throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: "its file is absent" });
    const cached = options.refresh ? undefined : this.deps.profiles?.get(key);
    if (cached) return cached;
    if (options.automatic && spec.provider === "openai" && !isLoopbackUrl(spec.baseUrl)) {
      throw aideError("VALIDATION", { detail: `${spec.id} is a remote endpoint: its probe spends its tokens, so it runs only when asked (aide models probe ${spec.id})` });
    }
    const running = this.probes.get(key);
    if (running) {
      if (options.onProgress) running.listeners.add(options.onProgress);
      return running.promise;
    }
    const listeners = new Set<(progress: ModelProbeProgress) => void>(options.onProgress ? [options.onProgress] : []);
    const clock = this.deps.clock ?? (() => new Date());
    const started = clock().getTime();
    const provider = this.provider(spec);
    const probe = probeModel(
      spec,
      {
        progress: (stage, step, steps) => {
          const progress: ModelProbeProgress = { model: spec.id, stage, step, steps, percent: Math.round((step / steps) * 100), elapsed_ms: Math.max(0, clock().getTime() - started) };
          for (const listener of listeners) listener(progress);
        },
        chat: (target, request) => this.chatWith(target, request, signal),
        facts: async (target) => provider.describe?.(target),
        generateId: this.deps.generateId ?? (() => randomUUID().slice(0, 8)),
        now: this.deps.clock ?? (() => new Date()),
      },
      { key, trials: options.trials ?? this.deps.probeTrials ?? 3 },
    )
      .then((profile) => {
        try {
          this.deps.profiles?.put(profile);
        } catch (error) {
          this.deps.logger.warn({ err: error, model: spec.id }, "the probe's profile could not be cached");
        }
        this.deps.logger.info({ model: spec.id, window: profile.context.window, tier: profile.prompt_tier, grammar: profile.grammar, calls: profile.tool_calls }, "model probed");
        return profile;
      })
      .finally(() => {
        this.probes.delete(key);
        void provider.dropSessions?.(spec, "probe-");
      });
    this.probes.set(key, { promise: probe, listeners });
    return probe;
  }

  private async info(listed: ModelSpec): Promise<ModelInfo> {
    const spec = this.effective(listed);
    const provider = this.deps.providers[spec.provider] as Provider | undefined;
    const status = provider
      ? await provider.status(spec).catch((error: Error) => ({ available: false, loaded: false, detail: error.message }))
      : { available: false, loaded: false, detail: `the ${spec.provider} provider is not enabled in this service` };
    const profile = this.cachedProfile(listed);
    const origin = this.registry.origins?.[spec.id];
    return {
      id: spec.id,
      provider: spec.provider,
      ...(origin !== undefined ? { source: origin } : {}),
      ...(profile !== undefined ? { profile } : {}),
      ...(spec.label !== undefined ? { label: spec.label } : {}),
      thinking: spec.thinking,
      ...(spec.thinkingLabel !== undefined ? { thinking_label: spec.thinkingLabel } : {}),
      ...(spec.reasoningEffort !== undefined ? { reasoning_effort: spec.reasoningEffort } : {}),
      native_tools: spec.nativeTools,
      context_budget: spec.contextBudget,
      max_output_tokens: spec.maxOutputTokens,
      max_iterations: spec.maxIterations,
      ...(spec.editFormat !== undefined ? { edit_format: spec.editFormat } : {}),
      available: status.available,
      loaded: status.loaded,
      ...(status.detail !== undefined ? { detail: status.detail } : {}),
    };
  }

  /** Stops every generation in flight (their chats reply finish_reason "abort"). */
  abortAll(): void {
    this.inFlight.abortAll();
  }

  async close(): Promise<void> {
    this.inFlight.abortAll();
    await Promise.allSettled(Object.values(this.deps.providers).map((provider) => provider?.close()));
  }
}
