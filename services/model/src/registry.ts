import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { aideError } from "@aide/contracts";
import { RegistryConfigSchema, type ModelRegistry, type ModelSpec } from "./model-spec.js";

export interface RegistryEnv {
  AIDE_MODELS_CONFIG?: string;
  AIDE_HOME?: string;
  HOME?: string;
}

export function aideHome(env: RegistryEnv): string {
  return resolve(env.AIDE_HOME ?? join(env.HOME ?? homedir(), ".aide"));
}

/** Formats zod issues as `models.2.baseUrl: Invalid URL` so the operator sees which field is wrong. */
function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

/** Parses a registry document; throws CONFIG_INVALID naming the bad field's path. */
export function parseRegistry(raw: unknown, source: string): ModelRegistry {
  const parsed = RegistryConfigSchema.safeParse(raw);
  if (!parsed.success) throw aideError("CONFIG_INVALID", { detail: `${source}: ${describeIssues(parsed.error.issues)}` });
  const models = parsed.data.models;
  return { default: parsed.data.default ?? models[0].id, models, source };
}

export function readRegistryFile(path: string): ModelRegistry {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw aideError("CONFIG_INVALID", { detail: `${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw aideError("CONFIG_INVALID", { detail: `${path}: not JSON (${(error as Error).message})` });
  }
  return parseRegistry(raw, path);
}

/**
 * The built-in registry: the seed's worked examples (Luna, Terra, Sol: separate local GGUF models
 * with boolean thinking; DeepSeek V4 Pro: remote, thinking on, reasoning_effort=max) — all
 * unavailable until their files exist or the operator consents to the remote endpoint — plus one
 * entry per GGUF file found in $AIDE_HOME/models, the first of which is the default.
 */
export function builtInRegistry(home: string): ModelRegistry {
  const modelsDir = join(home, "models");
  const examples: ModelSpec[] = [
    { id: "luna", label: "Luna", provider: "llama", file: join(modelsDir, "luna.gguf"), thinking: false, maxOutputTokens: 1024, maxIterations: 25, contextBudget: 8192, nativeTools: false, gpuLayers: 0, maxSessions: 4, grammar: true },
    { id: "terra", label: "Terra", provider: "llama", file: join(modelsDir, "terra.gguf"), thinking: true, thinkingLabel: "Thinking", maxOutputTokens: 2048, maxIterations: 25, contextBudget: 16384, nativeTools: false, gpuLayers: 0, maxSessions: 4, grammar: true },
    { id: "sol", label: "Sol", provider: "llama", file: join(modelsDir, "sol.gguf"), thinking: true, thinkingLabel: "Thinking", maxOutputTokens: 4096, maxIterations: 40, contextBudget: 32768, nativeTools: false, gpuLayers: 0, maxSessions: 2, grammar: true },
    {
      id: "deepseek-v4-pro", label: "DeepSeek V4 Pro", provider: "openai", baseUrl: "https://api.deepseek.com/v1", model: "deepseek-v4-pro",
      thinking: true, thinkingLabel: "Thinking", reasoningEffort: "max", maxOutputTokens: 8192, maxIterations: 50, contextBudget: 131072,
      nativeTools: true, allowRemote: false, apiKeyEnv: "DEEPSEEK_API_KEY", flavor: "deepseek", keepReasoning: true,
      timeoutMs: 300_000, maxRetries: 3, retryBaseMs: 500,
    },
  ];
  const known = new Set(examples.flatMap((spec) => (spec.provider === "llama" && spec.file !== undefined ? [spec.file] : [])));
  const found: ModelSpec[] = [];
  if (existsSync(modelsDir)) {
    for (const name of readdirSync(modelsDir).sort()) {
      const file = join(modelsDir, name);
      if (!name.endsWith(".gguf") || known.has(file)) continue;
      const id = basename(name, ".gguf").replace(/[^A-Za-z0-9._:-]/g, "-").slice(0, 128);
      found.push({ id, provider: "llama", file, thinking: false, maxOutputTokens: 1024, maxIterations: 25, contextBudget: 4096, nativeTools: false, gpuLayers: 0, maxSessions: 4, grammar: true });
    }
  }
  const models = [...found, ...examples];
  const firstPresent = [...found, ...examples].find((spec) => spec.provider === "llama" && spec.file !== undefined && existsSync(spec.file));
  return { default: firstPresent?.id ?? "luna", models, source: "built-in" };
}

/** `AIDE_MODELS_CONFIG`, else `$AIDE_HOME/models.json` if present, else the built-in registry. */
export function loadRegistry(env: RegistryEnv): ModelRegistry {
  if (env.AIDE_MODELS_CONFIG) return readRegistryFile(resolve(env.AIDE_MODELS_CONFIG));
  const home = aideHome(env);
  const homeConfig = join(home, "models.json");
  if (existsSync(homeConfig)) return readRegistryFile(homeConfig);
  return builtInRegistry(home);
}
