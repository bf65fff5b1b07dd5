import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { aideError } from "@aide/contracts";
import { RegistryConfigSchema, type ModelRegistry, type ModelSpec } from "./model-spec.js";
import { discoverySettings, type DiscoveryEnv } from "./discovery/discovery-settings.js";
import { discoverFiles } from "./discovery/discover-files.js";
import { discoverServers, type FetchJson } from "./discovery/discover-servers.js";

export interface RegistryEnv {
  AIDE_MODELS_CONFIG?: string;
  AIDE_HOME?: string;
  HOME?: string;
}

export function aideHome(env: RegistryEnv): string {
  return resolve(env.AIDE_HOME ?? join(env.HOME ?? homedir(), ".aide"));
}

/** Formats zod issues as `models.2.baseUrl: Invalid URL` so the operator sees which field is wrong. */
export function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
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

export type ModelOrigin = "configured" | "discovered";

/** What every client is told when there is no model at all: the three ways to get one. */
export function noModelHint(home: string, configPath = join(home, "models.json")): string {
  return [
    `drop a GGUF file into ${join(home, "models")}`,
    "start Ollama (`ollama serve`, then `ollama pull <model>`) or llama-server, LM Studio or vLLM on their usual loopback ports",
    `or run \`aide models add <id> --file <model.gguf>\` (or \`--url http://127.0.0.1:PORT/v1 --model NAME\`), which writes ${configPath}`,
  ].join("; ");
}

/** The configured registry: `AIDE_MODELS_CONFIG`, else `$AIDE_HOME/models.json` if present, else none. */
export function configuredRegistry(env: RegistryEnv): ModelRegistry | undefined {
  if (env.AIDE_MODELS_CONFIG) return readRegistryFile(resolve(env.AIDE_MODELS_CONFIG));
  const homeConfig = join(aideHome(env), "models.json");
  return existsSync(homeConfig) ? readRegistryFile(homeConfig) : undefined;
}

/** The path the registry is read from (and `aide models add` writes to). */
export function registryPath(env: RegistryEnv): string {
  return env.AIDE_MODELS_CONFIG ? resolve(env.AIDE_MODELS_CONFIG) : join(aideHome(env), "models.json");
}

function sameTarget(a: ModelSpec, b: ModelSpec): boolean {
  if (a.provider === "llama" && b.provider === "llama") return a.file !== undefined && a.file === b.file;
  if (a.provider === "openai" && b.provider === "openai") {
    const host = (url: string) => {
      try {
        const u = new URL(url);
        return `${u.hostname === "localhost" ? "127.0.0.1" : u.hostname}:${u.port}`;
      } catch {
        return url;
      }
    };
    return host(a.baseUrl) === host(b.baseUrl) && a.model === b.model;
  }
  return false;
}

/**
 * The configured entries, then the discovered ones that neither reuse a configured id nor point
 * at a configured file or endpoint model (configured entries win). The default is the configured
 * one, else the first discovered GGUF, else the first discovered server model; "" when empty.
 */
export function mergeRegistry(configured: ModelRegistry | undefined, discovered: ModelSpec[], home: string, report: string[] = []): ModelRegistry {
  const base = configured?.models ?? [];
  const ids = new Set(base.map((spec) => spec.id));
  const extra = discovered.filter((spec) => !ids.has(spec.id) && !base.some((own) => sameTarget(own, spec)));
  const models = [...base, ...extra];
  const origins: Record<string, ModelOrigin> = Object.fromEntries(models.map((spec) => [spec.id, ids.has(spec.id) ? "configured" : "discovered"]));
  const fallback = extra.find((spec) => spec.provider === "llama") ?? extra[0];
  const source = configured ? (extra.length > 0 ? `${configured.source} + discovery` : configured.source) : "discovery";
  return {
    default: configured?.default ?? fallback?.id ?? "",
    models,
    source,
    origins,
    report,
    ...(models.length === 0 ? { hint: noModelHint(home) } : {}),
  };
}

export interface AssembleOptions {
  /** Ask loopback servers too (off for a quick local listing). Default true. */
  servers?: boolean;
  fetch?: FetchJson;
}

/**
 * The registry the service offers: the configured file (a bad one throws CONFIG_INVALID), plus every
 * GGUF in `$AIDE_HOME/models` with the window its metadata declares (capped by
 * AIDE_MODEL_MAX_CONTEXT), plus the models of loopback servers (AIDE_MODEL_DISCOVERY).
 */
export async function loadRegistry(env: RegistryEnv & DiscoveryEnv, options: AssembleOptions = {}): Promise<ModelRegistry> {
  const settings = discoverySettings(env);
  const home = aideHome(env);
  const configured = configuredRegistry(env);
  const [files, servers] = await Promise.all([
    discoverFiles(join(home, "models"), settings.maxContext),
    options.servers === false ? Promise.resolve({ specs: [], report: [] }) : discoverServers(settings, options.fetch),
  ]);
  const report = [`${files.length} GGUF file(s) in ${join(home, "models")}`, ...servers.report];
  return mergeRegistry(configured, [...files, ...servers.specs], home, report);
}
