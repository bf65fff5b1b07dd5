import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { LlamaSpec } from "../model-spec.js";
import { ggufTrainedWindow } from "./gguf-window.js";
import { modelCatalog } from "../pull/catalog.js";

/** A file `aide models pull` fetched keeps its catalog id (`smollm2-135m`), not one made from its upstream name. */
const catalogIds = new Map(Object.values(modelCatalog).map((entry) => [entry.fileName, entry.id]));

/** A registry id from a file name: `tiny model.gguf` → `tiny-model`. */
export function fileModelId(name: string): string {
  return basename(name, ".gguf")
    .replace(/[^A-Za-z0-9._:-]/g, "-")
    .slice(0, 128);
}

/**
 * One llama spec per `*.gguf` in the models folder, sorted by name, each with the window its
 * metadata declares (at most `maxContext`; 4096 when the header says nothing).
 */
export async function discoverFiles(modelsDir: string, maxContext: number): Promise<LlamaSpec[]> {
  if (!existsSync(modelsDir)) return [];
  let names: string[];
  try {
    names = readdirSync(modelsDir)
      .filter((name) => name.endsWith(".gguf"))
      .sort();
  } catch {
    return [];
  }
  return Promise.all(
    names.map(async (name) => {
      const file = join(modelsDir, name);
      const trained = await ggufTrainedWindow(file);
      const window = Math.min(trained ?? 4096, maxContext);
      return {
        id: catalogIds.get(name) ?? fileModelId(name),
        label: `${name} (${trained ? `trained window ${trained}` : "window unknown"})`,
        provider: "llama",
        file,
        thinking: false,
        maxOutputTokens: Math.min(1024, Math.floor(window / 4)),
        maxIterations: 25,
        contextBudget: window,
        contextSize: window,
        nativeTools: false,
        gpuLayers: 0,
        maxSessions: 4,
        grammar: true,
      } satisfies LlamaSpec;
    }),
  );
}
