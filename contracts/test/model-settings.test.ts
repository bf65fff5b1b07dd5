import { describe, expect, it } from "vitest";
import { modelSettingsOf, settingDefaults, type ModelProfile } from "../src/index.js";

const profile = (window: number, extra: Partial<ModelProfile> = {}): ModelProfile => ({
  model: "m",
  provider: "llama",
  key: "k",
  probed_at: "t",
  context: { window },
  prompt_tier: window <= 8192 ? "compact" : "full",
  grammar: false,
  tool_calls: "xml",
  speed: {},
  tool_trials: { without_grammar: { trials: 3, valid: 3 } },
  template: { name: "t", system_role: true },
  notes: [],
  ...extra,
});

describe("a model's own settings, one record", () => {
  it("takes the probe's tier and grammar first, a smaller listed window over it, then the window, then the full tier", () => {
    expect(modelSettingsOf({ profile: profile(2048) })).toMatchObject({ windowTokens: 2048, prompt_tier: { value: "compact", source: "probe" }, grammar: { value: false, source: "probe" } });
    expect(modelSettingsOf({ profile: profile(32_768), listedTokens: 4096 })).toMatchObject({ windowTokens: 4096, prompt_tier: { value: "compact", source: "window" } });
    expect(modelSettingsOf({ listedTokens: 16_384, provider: "openai" })).toMatchObject({ prompt_tier: { value: "full", source: "window" }, grammar: { source: "registry" } });
    expect(modelSettingsOf({ listedTokens: 4096, provider: "scripted" }).prompt_tier).toEqual({ value: "full", source: "default" });
    expect(modelSettingsOf({}).prompt_tier).toEqual({ value: "full", source: "default" });
    // An endpoint's profile does not choose the grammar (the model service's default does).
    expect(modelSettingsOf({ profile: profile(4096, { provider: "openai", grammar: true }) }).grammar).toEqual({ source: "registry" });
  });

  it("takes the edit format from the registry entry, else the setting table's default", () => {
    expect(modelSettingsOf({ editFormat: "whole-file" }).edit_format).toEqual({ value: "whole-file", source: "registry" });
    expect(modelSettingsOf({}).edit_format).toEqual({ value: settingDefaults.edit_format, source: "default" });
  });

  it("keeps a configured entry's tool-call format; a discovered endpoint takes native calls its probe found reliable", () => {
    const native = profile(4096, { provider: "openai", tool_calls: "native" });
    expect(modelSettingsOf({ profile: native, provider: "openai", nativeTools: false, origin: "configured" }).tool_calls).toEqual({ value: "xml", source: "registry" });
    expect(modelSettingsOf({ profile: native, provider: "openai", nativeTools: false, origin: "discovered" }).tool_calls).toEqual({ value: "native", source: "probe" });
    expect(modelSettingsOf({ provider: "openai", nativeTools: true }).tool_calls).toEqual({ value: "native", source: "registry" });
  });
});
