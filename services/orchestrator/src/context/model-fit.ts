import { promptTierFor, type ExperimentSettings, type GrammarScope, type ModelProfile, type PromptTier } from "@aide/contracts";

/** How the run's prompt fits the model: its window, the tier, the character budget, the grammar. */
export interface ModelFit {
  /** The model's window in tokens, when known. */
  windowTokens?: number;
  tier: PromptTier;
  /** The run's context budget in characters. */
  budgetChars: number;
  /** Constrain decoding with the tool-call grammar (undefined: the model service's default). */
  grammar?: boolean;
  /** What the grammar covers and whether it encodes the argument schemas' bounds (an eval arm's settings). */
  grammarScope?: GrammarScope;
  grammarSchema?: boolean;
  /** Where the window came from, for messages. */
  source: "probe" | "model list" | "configured characters";
}

/**
 * Characters per token assumed when a model's token window becomes a character budget and the probe
 * did not measure it: low for BPE vocabularies (3.5–4 is typical). A quarter of the window stays
 * free for the reply.
 */
const DEFAULT_CHARS_PER_TOKEN = 3;
const PROMPT_SHARE = 0.75;

/**
 * The probe's profile wins (its measured window, chars per token, tier and grammar); else the
 * window the model list gives (its tier, except for scripted transcripts, which keep the full one);
 * else the configured character budget and the full tier.
 */
export function modelFit(configuredChars: number, profile: ModelProfile | undefined, listedTokens: number | undefined, provider?: string): ModelFit {
  if (profile) {
    const window = listedTokens !== undefined ? Math.min(profile.context.window, listedTokens) : profile.context.window;
    const perToken = profile.chars_per_token ?? DEFAULT_CHARS_PER_TOKEN;
    return {
      windowTokens: window,
      tier: window < profile.context.window ? promptTierFor(window) : profile.prompt_tier,
      budgetChars: Math.min(configuredChars, Math.floor(window * perToken * PROMPT_SHARE)),
      ...(profile.provider === "llama" ? { grammar: profile.grammar } : {}),
      source: "probe",
    };
  }
  if (listedTokens !== undefined) {
    // A scripted transcript has no window: its listed budget bounds the characters, never the tier.
    const tier = provider === "scripted" ? "full" : promptTierFor(listedTokens);
    return { windowTokens: listedTokens, tier, budgetChars: Math.min(configuredChars, Math.floor(listedTokens * DEFAULT_CHARS_PER_TOKEN * PROMPT_SHARE)), source: "model list" };
  }
  return { tier: "full", budgetChars: configuredChars, source: "configured characters" };
}

/**
 * A run's experiment settings (an eval arm) over the fit the model gives: a set prompt tier or
 * grammar wins over the probe's and the window's choice; the budget stays the model's.
 */
export function withExperimentFit(fit: ModelFit, settings: Pick<ExperimentSettings, "prompt_tier" | "grammar" | "grammar_scope" | "grammar_schema"> | undefined): ModelFit {
  return {
    ...fit,
    ...(settings?.prompt_tier !== undefined ? { tier: settings.prompt_tier } : {}),
    ...(settings?.grammar !== undefined ? { grammar: settings.grammar } : {}),
    ...(settings?.grammar_scope !== undefined ? { grammarScope: settings.grammar_scope } : {}),
    ...(settings?.grammar_schema !== undefined ? { grammarSchema: settings.grammar_schema } : {}),
  };
}
