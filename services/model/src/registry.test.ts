import { describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRegistry, parseRegistry } from "./registry.js";
import { discoverySettings } from "./discovery/discovery-settings.js";

const sharedModel = process.env.AIDE_TEST_MODEL ?? join(import.meta.dirname, "..", "..", "..", "..", "shared", "models", "stories260K.gguf");

describe("model registry", () => {
  it("refuses a bad field with its path", () => {
    expect(() =>
      parseRegistry(
        {
          models: [
            { id: "a", provider: "scripted", transcript: "/t.json" },
            { id: "b", provider: "llama", file: "/m.gguf", threads: -1 },
          ],
        },
        "x.json",
      ),
    ).toThrow(/models\.1\.threads/);
    expect(() => parseRegistry({ models: [{ id: "a", provider: "scripted", transcript: "/t.json", extra: 1 }] }, "x.json")).toThrow(/models\.0: Unrecognized key/);
    expect(() => parseRegistry({ models: [{ id: "a", provider: "llama" }] }, "x.json")).toThrow(/models\.0\.file: a llama model needs file or uri/);
    expect(() => parseRegistry({ default: "zz", models: [{ id: "a", provider: "scripted", transcript: "/t" }] }, "x.json")).toThrow(/default: no model with id zz/);
    expect(() =>
      parseRegistry(
        {
          models: [
            { id: "a", provider: "scripted", transcript: "/t" },
            { id: "a", provider: "scripted", transcript: "/t" },
          ],
        },
        "x.json",
      ),
    ).toThrow(/models\.1\.id: duplicate/);
  });

  it("fills defaults and takes the first model as the default", () => {
    const registry = parseRegistry({ models: [{ id: "luna", provider: "llama", file: "/m.gguf" }] }, "x.json");
    expect(registry.default).toBe("luna");
    expect(registry.models[0]).toMatchObject({ maxOutputTokens: 1024, maxIterations: 25, contextBudget: 4096, grammar: true, thinking: false });
  });

  it("with nothing configured or found, is empty and says what to do; GGUFs in AIDE_HOME/models get their metadata window", async () => {
    const home = mkdtempSync(join(tmpdir(), "aide-registry-"));
    try {
      const off = { AIDE_HOME: home, AIDE_MODEL_DISCOVERY: "off" };
      const empty = await loadRegistry(off);
      expect(empty.models).toEqual([]);
      expect(empty.default).toBe("");
      expect(empty.hint).toContain(join(home, "models"));
      expect(empty.hint).toContain("Ollama");
      expect(empty.hint).toContain("aide models add");
      mkdirSync(join(home, "models"));
      writeFileSync(join(home, "models", "tiny model.gguf"), "");
      copyFileSync(sharedModel, join(home, "models", "stories.gguf"));
      const registry = await loadRegistry(off);
      expect(registry.models.map((m) => m.id)).toEqual(["stories", "tiny-model"]);
      expect(registry.default).toBe("stories");
      // The shipped file's header says 2048; an unreadable header falls back to 4096.
      expect(registry.models[0]).toMatchObject({ provider: "llama", contextBudget: 2048, contextSize: 2048 });
      expect(registry.models[1]).toMatchObject({ id: "tiny-model", file: join(home, "models", "tiny model.gguf"), contextBudget: 4096 });
      expect((await loadRegistry({ ...off, AIDE_MODEL_MAX_CONTEXT: "1024" })).models[0]).toMatchObject({ contextBudget: 1024 });
      expect(registry.origins).toEqual({ stories: "discovered", "tiny-model": "discovered" });
      // Configured entries win: same id, or the same file under another id.
      writeFileSync(
        join(home, "models.json"),
        JSON.stringify({
          models: [
            { id: "mine", provider: "llama", file: join(home, "models", "stories.gguf") },
            { id: "tiny-model", provider: "scripted", transcript: "/t.json" },
          ],
        }),
      );
      const merged = await loadRegistry(off);
      expect(merged.models.map((m) => `${m.id}:${m.provider}`)).toEqual(["mine:llama", "tiny-model:scripted"]);
      expect(merged.default).toBe("mine");
      expect(merged.source).toBe(join(home, "models.json"));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("validates the shipped example config", async () => {
    const registry = await loadRegistry({ AIDE_MODELS_CONFIG: join(import.meta.dirname, "..", "..", "..", "examples", "models.example.json"), AIDE_MODEL_DISCOVERY: "off" });
    expect(registry.models.length).toBeGreaterThan(3);
  });

  it("reads the discovery setting and refuses a typo naming it", () => {
    expect(discoverySettings({}).ports).toEqual({ ollama: 11434, llamacpp: 8080, lmstudio: 1234, vllm: 8000 });
    expect(discoverySettings({ AIDE_MODEL_DISCOVERY: "ollama=11500,vllm=0" }).ports).toEqual({ ollama: 11500, llamacpp: 8080, lmstudio: 1234 });
    expect(discoverySettings({ AIDE_MODEL_DISCOVERY: "off" }).ports).toEqual({});
    expect(() => discoverySettings({ AIDE_MODEL_DISCOVERY: "olama=11434" })).toThrow(/'olama=11434' is not kind=port/);
  });
});
