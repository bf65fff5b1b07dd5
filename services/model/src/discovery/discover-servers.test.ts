import { describe, expect, it } from "vitest";
import { discoverServers, discoveredId, type FetchJson } from "./discover-servers.js";
import { discoverySettings } from "./discovery-settings.js";

describe("discoverServers", () => {
  it("asks only 127.0.0.1, names models by server kind, skips embedding models, and reports what did not answer", async () => {
    const asked: string[] = [];
    const fetch: FetchJson = async (url) => {
      asked.push(url);
      if (url.endsWith(":1234/v1/models")) return { data: [{ id: "qwen/qwen3-8b" }, { id: "text-embedding-nomic" }] };
      if (url.endsWith(":8000/v1/models")) return { data: [{ id: "Qwen/Qwen2.5-7B", max_model_len: 32768 }] };
      if (url.endsWith(":11434/api/tags")) return { models: "not a list" };
      throw Object.assign(new Error("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    };
    const found = await discoverServers(discoverySettings({ AIDE_MODEL_MAX_CONTEXT: "16384" }), fetch);
    expect(asked.every((url) => url.startsWith("http://127.0.0.1:"))).toBe(true);
    expect(found.specs.map((spec) => [spec.id, spec.contextBudget, spec.flavor])).toEqual([
      ["lmstudio:qwen-qwen3-8b", 4096, "openai"],
      ["vllm:Qwen-Qwen2.5-7B", 16384, "openai"],
    ]);
    expect(found.report.find((line) => line.startsWith("llamacpp"))).toContain("not found (ECONNREFUSED)");
    expect(found.report.find((line) => line.startsWith("ollama"))).toContain("not found (its answer is not a model list)");
  });

  it("makes ids the registry accepts", () => {
    expect(discoveredId("ollama", "hf.co/user/model:Q4_K_M")).toBe("ollama:hf.co-user-model:Q4_K_M");
  });
});
