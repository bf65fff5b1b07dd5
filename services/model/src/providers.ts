import type { Logger } from "pino";
import type { ProviderSet } from "./model-engine.js";
import { ScriptedProvider } from "./scripted-provider.js";

export interface ProvidersOptions {
  env: Record<string, string | undefined>;
  logger: Logger;
}

/** One instance of each provider kind, shared by every spec of that kind. */
export function createProviders(_options: ProvidersOptions): ProviderSet {
  return { scripted: new ScriptedProvider() };
}
