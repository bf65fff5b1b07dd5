import { promptTierFor, type ModelProfile, type PromptTier } from "./model-profile.js";
import { settingDefaults, type EditFormat } from "./setting-table.js";

/**
 * What is known of one model: the probe's measured profile (the model service caches one per file
 * or endpoint), its registry entry's choices (models.json: `editFormat`, `nativeTools`, the window
 * the model list gives), and its provider.
 */
export interface ModelFacts {
  profile?: ModelProfile;
  /** The window in tokens the model list gives (its registry entry's context budget, or the server's). */
  listedTokens?: number;
  provider?: string;
  /** The registry entry's edit format. */
  editFormat?: EditFormat;
  /** The registry entry's `nativeTools`. */
  nativeTools?: boolean;
  /** Where the registry entry came from: models.json (`configured`), or found on the machine (`discovered`). */
  origin?: "configured" | "discovered" | "built-in";
}

/**
 * A model's own choices, one record per model (as aider keeps one ModelSettings per model): the
 * window, the prompt tier, the grammar, the edit format and the tool-call format a run with it uses
 * when its start sets none (the start's settings win: setting-table.ts), each with where it came
 * from. This is the one place their precedence is written: the probe's measurement first, then the
 * registry entry, then the window, then the setting table's default.
 */
export interface ModelSettings {
  windowTokens?: number;
  prompt_tier: { value: PromptTier; source: "probe" | "window" | "default" };
  /** Absent value: the model service's own default (a local model's registry entry `grammar`, on unless set off). */
  grammar: { value?: boolean; source: "probe" | "registry" };
  edit_format: { value: EditFormat; source: "registry" | "default" };
  tool_calls: { value: "native" | "xml"; source: "probe" | "registry" };
}

export function modelSettingsOf(facts: ModelFacts): ModelSettings {
  const { profile, listedTokens } = facts;
  const measuredGrammar = profile?.provider === "llama" ? { value: profile.grammar, source: "probe" as const } : { source: "registry" as const };
  const edit_format = facts.editFormat !== undefined ? { value: facts.editFormat, source: "registry" as const } : { value: settingDefaults.edit_format, source: "default" as const };
  // A configured entry keeps the format its file says; a discovered endpoint whose probe found native calls reliable uses them.
  const probedNative = facts.provider === "openai" && facts.nativeTools !== true && facts.origin === "discovered" && profile?.tool_calls === "native";
  const tool_calls = probedNative
    ? { value: "native" as const, source: "probe" as const }
    : { value: facts.nativeTools === true ? ("native" as const) : ("xml" as const), source: "registry" as const };
  if (profile) {
    // A listed window smaller than the measured one bounds it (and its tier follows that window).
    const window = listedTokens !== undefined ? Math.min(profile.context.window, listedTokens) : profile.context.window;
    const prompt_tier = window < profile.context.window ? { value: promptTierFor(window), source: "window" as const } : { value: profile.prompt_tier, source: "probe" as const };
    return { windowTokens: window, prompt_tier, grammar: measuredGrammar, edit_format, tool_calls };
  }
  if (listedTokens !== undefined) {
    // A scripted transcript has no window: its listed budget bounds the characters, never the tier.
    const prompt_tier = facts.provider === "scripted" ? { value: "full" as const, source: "default" as const } : { value: promptTierFor(listedTokens), source: "window" as const };
    return { windowTokens: listedTokens, prompt_tier, grammar: measuredGrammar, edit_format, tool_calls };
  }
  return { prompt_tier: { value: "full", source: "default" }, grammar: measuredGrammar, edit_format, tool_calls };
}
