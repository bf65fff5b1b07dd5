import { availableParallelism } from "node:os";
import type { Logger } from "pino";
import type { ProviderSet } from "./model-engine.js";
import { llamaLoader, LlamaProvider } from "./llama-provider.js";
import { defaultThreads } from "./llama-threads.js";
import { aideHome } from "./registry.js";
import { OpenAiProvider } from "./openai-provider.js";
import { ScriptedProvider } from "./scripted-provider.js";

export interface ProvidersOptions {
  env: Record<string, string | undefined>;
  logger: Logger;
}

/**
 * One instance of each provider kind, shared by every spec of that kind.
 * Env: AIDE_HOME (model files), AIDE_MODEL_THREADS (override the measured thread default),
 * AIDE_MODEL_MAX_LOADED (local models kept loaded at once, default 2), AIDE_MODEL_GPU ("auto" to
 * use a GPU prebuilt binary when one works; default CPU only), AIDE_MODEL_PREFIX_CACHE ("0" turns
 * off the prompt-prefix cache shared across a local model's sessions, llama-prefix-cache.ts).
 */
export function createProviders(options: ProvidersOptions): ProviderSet {
  const threadsOverride = Number.parseInt(options.env.AIDE_MODEL_THREADS ?? "", 10);
  const maxLoaded = Number.parseInt(options.env.AIDE_MODEL_MAX_LOADED ?? "", 10);
  return {
    scripted: new ScriptedProvider(),
    openai: new OpenAiProvider({ env: options.env, logger: options.logger.child({ module: "openai" }) }),
    llama: new LlamaProvider({
      home: aideHome(options.env),
      logger: options.logger,
      defaultThreads: threadsOverride > 0 ? threadsOverride : defaultThreads(availableParallelism()),
      maxLoaded: maxLoaded > 0 ? maxLoaded : 2,
      getLlama: llamaLoader(options.env.AIDE_MODEL_GPU === "auto" ? "auto" : false),
      prefixCache: options.env.AIDE_MODEL_PREFIX_CACHE !== "0",
    }),
  };
}
