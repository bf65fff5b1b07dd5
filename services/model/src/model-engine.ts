import type { Logger } from "pino";
import { AideError, aideError, type ModelChatRequest, type ModelChatResult, type ModelDelta, type ModelInfo } from "@aide/contracts";
import type { ModelRegistry, ModelSpec } from "./model-spec.js";
import type { Provider, ProviderReply } from "./provider.js";
import { InFlight } from "./in-flight.js";
import { DeltaBatcher } from "./delta-batcher.js";

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
}

/**
 * The model service's logic, independent of the bus: resolves the ModelSpec, runs the provider
 * with an abort signal (agent.model.abort, the request's timeout, the service draining), streams
 * deltas and assembles the final reply with timings.
 */
export class ModelEngine {
  private readonly inFlight = new InFlight();
  private readonly now: () => number;

  constructor(private readonly deps: ModelEngineDeps) {
    this.now = deps.now ?? (() => performance.now());
  }

  resolve(id: string | undefined): ModelSpec {
    const wanted = id ?? this.deps.registry.default;
    const spec = this.deps.registry.models.find((model) => model.id === wanted);
    if (!spec) throw aideError("MODEL_NOT_FOUND", { model: wanted });
    return spec;
  }

  private provider(spec: ModelSpec): Provider {
    const provider = this.deps.providers[spec.provider] as Provider | undefined;
    if (!provider) throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: `the ${spec.provider} provider is not enabled in this service` });
    return provider;
  }

  async chat(request: ModelChatRequest, serviceSignal?: AbortSignal): Promise<ModelChatResult> {
    const spec = this.resolve(request.model);
    const provider = this.provider(spec);
    const started = this.now();
    const controller = this.inFlight.start(request.request_id);
    let timedOut = false;
    const timer = request.timeout_ms !== undefined ? setTimeout(() => { timedOut = true; controller.abort(); }, request.timeout_ms) : undefined;
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

  async list(): Promise<{ models: ModelInfo[]; default: string }> {
    const models = await Promise.all(this.deps.registry.models.map((spec) => this.info(spec)));
    return { models, default: this.deps.registry.default };
  }

  private async info(spec: ModelSpec): Promise<ModelInfo> {
    const provider = this.deps.providers[spec.provider] as Provider | undefined;
    const status = provider
      ? await provider.status(spec).catch((error: Error) => ({ available: false, loaded: false, detail: error.message }))
      : { available: false, loaded: false, detail: `the ${spec.provider} provider is not enabled in this service` };
    return {
      id: spec.id,
      provider: spec.provider,
      ...(spec.label !== undefined ? { label: spec.label } : {}),
      thinking: spec.thinking,
      ...(spec.thinkingLabel !== undefined ? { thinking_label: spec.thinkingLabel } : {}),
      ...(spec.reasoningEffort !== undefined ? { reasoning_effort: spec.reasoningEffort } : {}),
      native_tools: spec.nativeTools,
      context_budget: spec.contextBudget,
      max_output_tokens: spec.maxOutputTokens,
      max_iterations: spec.maxIterations,
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
