import { describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtInRegistry, loadRegistry, parseRegistry } from "./registry.js";

describe("model registry", () => {
  it("refuses a bad field with its path", () => {
    expect(() => parseRegistry({ models: [{ id: "a", provider: "scripted", transcript: "/t.json" }, { id: "b", provider: "llama", file: "/m.gguf", threads: -1 }] }, "x.json")).toThrow(/models\.1\.threads/);
    expect(() => parseRegistry({ models: [{ id: "a", provider: "scripted", transcript: "/t.json", extra: 1 }] }, "x.json")).toThrow(/models\.0: Unrecognized key/);
    expect(() => parseRegistry({ models: [{ id: "a", provider: "llama" }] }, "x.json")).toThrow(/models\.0\.file: a llama model needs file or uri/);
    expect(() => parseRegistry({ default: "zz", models: [{ id: "a", provider: "scripted", transcript: "/t" }] }, "x.json")).toThrow(/default: no model with id zz/);
    expect(() => parseRegistry({ models: [{ id: "a", provider: "scripted", transcript: "/t" }, { id: "a", provider: "scripted", transcript: "/t" }] }, "x.json")).toThrow(/models\.1\.id: duplicate/);
  });

  it("fills defaults and takes the first model as the default", () => {
    const registry = parseRegistry({ models: [{ id: "luna", provider: "llama", file: "/m.gguf" }] }, "x.json");
    expect(registry.default).toBe("luna");
    expect(registry.models[0]).toMatchObject({ maxOutputTokens: 1024, maxIterations: 25, contextBudget: 4096, grammar: true, thinking: false });
  });

  it("carries the seed's models, unavailable until configured, plus GGUF files found in AIDE_HOME/models", () => {
    const home = mkdtempSync(join(tmpdir(), "aide-registry-"));
    try {
      expect(builtInRegistry(home).models.map((m) => m.id)).toEqual(["luna", "terra", "sol", "deepseek-v4-pro"]);
      const deepseek = builtInRegistry(home).models.find((m) => m.id === "deepseek-v4-pro");
      expect(deepseek).toMatchObject({ provider: "openai", thinking: true, reasoningEffort: "max", allowRemote: false });
      mkdirSync(join(home, "models"));
      writeFileSync(join(home, "models", "tiny model.gguf"), "");
      const registry = loadRegistry({ AIDE_HOME: home });
      expect(registry.default).toBe("tiny-model");
      expect(registry.models[0]).toMatchObject({ id: "tiny-model", provider: "llama", file: join(home, "models", "tiny model.gguf") });
      writeFileSync(join(home, "models.json"), JSON.stringify({ models: [{ id: "s", provider: "scripted", transcript: "/t.json" }] }));
      expect(loadRegistry({ AIDE_HOME: home }).source).toBe(join(home, "models.json"));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("validates the shipped example config", () => {
    const registry = loadRegistry({ AIDE_MODELS_CONFIG: join(import.meta.dirname, "..", "..", "..", "examples", "models.example.json") });
    expect(registry.models.length).toBeGreaterThan(3);
  });
});
