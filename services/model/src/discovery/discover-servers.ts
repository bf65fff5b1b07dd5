import { z } from "zod";
import type { OpenAiSpec } from "../model-spec.js";
import type { DiscoverySettings, ServerKind } from "./discovery-settings.js";

/** Loopback only: discovery never asks another machine. */
const HOST = "127.0.0.1";

const OllamaTagsSchema = z.object({ models: z.array(z.object({ name: z.string().min(1) }).passthrough()).default([]) }).passthrough();
const OllamaShowSchema = z.object({ model_info: z.record(z.string(), z.unknown()).optional() }).passthrough();
const OpenAiModelsSchema = z
  .object({
    data: z
      .array(
        z
          .object({ id: z.string().min(1), max_model_len: z.number().int().positive().optional(), meta: z.object({ n_ctx_train: z.number().int().positive().optional() }).passthrough().nullish() })
          .passthrough(),
      )
      .default([]),
  })
  .passthrough();
const LlamaServerPropsSchema = z.object({ default_generation_settings: z.object({ n_ctx: z.number().int().positive().optional() }).passthrough().optional() }).passthrough();

export type FetchJson = (url: string, init: { method?: string; body?: string; timeoutMs: number }) => Promise<unknown>;

/** GET/POST a loopback URL and parse its JSON; throws on a network error, a non-2xx or bad JSON. */
export const fetchJson: FetchJson = async (url, init) => {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    ...(init.body !== undefined ? { body: init.body, headers: { "content-type": "application/json" } } : {}),
    redirect: "error",
    signal: AbortSignal.timeout(init.timeoutMs),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${response.status}`);
  }
  return response.json();
};

/** A model id the registry accepts: `ollama:qwen2.5-coder:7b`, `llamacpp:model.gguf`. */
export function discoveredId(kind: ServerKind, name: string): string {
  return `${kind}:${name}`.replace(/[^A-Za-z0-9._:-]/g, "-").slice(0, 128);
}

interface Found {
  name: string;
  /** The window the server says it holds (llama-server n_ctx, vLLM max_model_len, Ollama's model info). */
  window?: number;
}

async function ollamaModels(port: number, settings: DiscoverySettings, fetch: FetchJson): Promise<Found[]> {
  const tags = OllamaTagsSchema.parse(await fetch(`http://${HOST}:${port}/api/tags`, { timeoutMs: settings.timeoutMs }));
  return Promise.all(
    tags.models.map(async (model) => {
      try {
        const show = OllamaShowSchema.parse(await fetch(`http://${HOST}:${port}/api/show`, { method: "POST", body: JSON.stringify({ model: model.name }), timeoutMs: settings.timeoutMs }));
        const entry = Object.entries(show.model_info ?? {}).find(([key, value]) => key.endsWith(".context_length") && typeof value === "number");
        return { name: model.name, ...(entry ? { window: entry[1] as number } : {}) };
      } catch {
        return { name: model.name };
      }
    }),
  );
}

async function openAiModels(kind: ServerKind, port: number, settings: DiscoverySettings, fetch: FetchJson): Promise<Found[]> {
  const list = OpenAiModelsSchema.parse(await fetch(`http://${HOST}:${port}/v1/models`, { timeoutMs: settings.timeoutMs }));
  let serverWindow: number | undefined;
  if (kind === "llamacpp") {
    try {
      serverWindow = LlamaServerPropsSchema.parse(await fetch(`http://${HOST}:${port}/props`, { timeoutMs: settings.timeoutMs })).default_generation_settings?.n_ctx;
    } catch {
      serverWindow = undefined;
    }
  }
  return list.data
    .filter((model) => !/embed/i.test(model.id))
    .map((model) => {
      const window = serverWindow ?? model.max_model_len;
      return { name: model.id, ...(window !== undefined ? { window } : {}) };
    });
}

/** Windows assumed when a server does not say: Ollama's num_ctx is set by aide, the others' is theirs. */
const assumedWindow: Record<ServerKind, number> = { ollama: 8192, llamacpp: 4096, lmstudio: 4096, vllm: 4096 };

function specFor(kind: ServerKind, port: number, found: Found, settings: DiscoverySettings): OpenAiSpec {
  const window = Math.min(found.window ?? assumedWindow[kind], settings.maxContext);
  return {
    id: discoveredId(kind, found.name),
    label: `${found.name} (${kind} on port ${port})`,
    provider: "openai",
    baseUrl: `http://${HOST}:${port}/v1`,
    model: found.name,
    flavor: kind === "ollama" ? "ollama" : kind === "llamacpp" ? "llamacpp" : "openai",
    thinking: false,
    maxOutputTokens: Math.min(1024, Math.floor(window / 4)),
    maxIterations: 25,
    contextBudget: window,
    nativeTools: false,
    allowRemote: false,
    keepReasoning: false,
    timeoutMs: 300_000,
    maxRetries: 2,
    retryBaseMs: 500,
  };
}

export interface ServerDiscovery {
  specs: OpenAiSpec[];
  /** One line per server asked: what answered and what did not (for the log and `aide models`). */
  report: string[];
}

/** Asks each configured loopback port for its model list, all at once, each within the timeout. */
export async function discoverServers(settings: DiscoverySettings, fetch: FetchJson = fetchJson): Promise<ServerDiscovery> {
  const kinds = Object.entries(settings.ports) as Array<[ServerKind, number]>;
  const results = await Promise.all(
    kinds.map(async ([kind, port]) => {
      try {
        const found = kind === "ollama" ? await ollamaModels(port, settings, fetch) : await openAiModels(kind, port, settings, fetch);
        return { specs: found.map((model) => specFor(kind, port, model, settings)), line: `${kind} on ${HOST}:${port}: ${found.length} model(s)` };
      } catch (error) {
        const cause = error instanceof z.ZodError ? "its answer is not a model list" : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name);
        return { specs: [], line: `${kind} on ${HOST}:${port}: not found (${cause === "TimeoutError" ? "no answer" : cause})` };
      }
    }),
  );
  const seen = new Set<string>();
  const specs = results.flatMap((result) => result.specs).filter((spec) => (seen.has(spec.id) ? false : (seen.add(spec.id), true)));
  return { specs, report: results.map((result) => result.line) };
}
