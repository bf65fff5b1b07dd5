import { modelSettingsOf, type ExperimentSettings, type GrammarScope, type ModelProfile, type PromptTier } from "@aide/contracts";

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
 * The model's own settings (contracts' modelSettingsOf: the probe's profile first, else the window
 * the model list gives, else the full tier) and the character budget they leave: the profile's
 * measured chars per token over its window, else an assumed ratio over the listed window, else the
 * configured budget.
 */
export function modelFit(configuredChars: number, profile: ModelProfile | undefined, listedTokens: number | undefined, provider?: string): ModelFit {
  const settings = modelSettingsOf({ ...(profile ? { profile } : {}), ...(listedTokens !== undefined ? { listedTokens } : {}), ...(provider !== undefined ? { provider } : {}) });
  const tier = settings.prompt_tier.value;
  if (profile && settings.windowTokens !== undefined) {
    const perToken = profile.chars_per_token ?? DEFAULT_CHARS_PER_TOKEN;
    return {
      windowTokens: settings.windowTokens,
      tier,
      budgetChars: Math.min(configuredChars, Math.floor(settings.windowTokens * perToken * PROMPT_SHARE)),
      ...(settings.grammar.value !== undefined ? { grammar: settings.grammar.value } : {}),
      source: "probe",
    };
  }
  if (settings.windowTokens !== undefined) {
    return { windowTokens: settings.windowTokens, tier, budgetChars: Math.min(configuredChars, Math.floor(settings.windowTokens * DEFAULT_CHARS_PER_TOKEN * PROMPT_SHARE)), source: "model list" };
  }
  return { tier, budgetChars: configuredChars, source: "configured characters" };
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
