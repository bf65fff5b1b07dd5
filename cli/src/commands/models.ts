import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { aideHome as modelHome, loadRegistry, modelFilePath, pullModel, type ModelSpec } from "@aide/model";

const usage = "usage: aide models [list] [--json] | aide models pull <id>";

function where(spec: ModelSpec, home: string): string {
  switch (spec.provider) {
    case "llama": {
      const path = modelFilePath(spec, home);
      return `${path} ${existsSync(path) ? "(present)" : spec.uri ? `(absent: aide models pull ${spec.id})` : "(absent)"}`;
    }
    case "openai":
      return spec.baseUrl;
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

/**
 * `aide models`: the model registry as the model service loads it (AIDE_MODELS_CONFIG, else
 * $AIDE_HOME/models.json, else the built-in list); `aide models pull <id>` downloads a model's
 * URI into $AIDE_HOME/models with a progress bar (needs the network; the service never downloads).
 */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: "boolean" } } });
  const [verb = "list", id] = positionals;
  const home = modelHome(process.env);
  const registry = loadRegistry(process.env);
  if (verb === "list") {
    if (values.json) {
      process.stdout.write(JSON.stringify(registry, null, 2) + "\n");
      return 0;
    }
    process.stdout.write(`models from ${registry.source}:\n`);
    for (const spec of registry.models) {
      const mark = spec.id === registry.default ? "*" : " ";
      process.stdout.write(`${mark} ${spec.id.padEnd(18)} ${spec.provider.padEnd(9)} ${where(spec, home)}\n`);
    }
    return 0;
  }
  if (verb !== "pull" || !id) {
    process.stderr.write(usage + "\n");
    return 2;
  }
  const spec = registry.models.find((model) => model.id === id);
  if (!spec) {
    process.stderr.write(`aide models: no model '${id}' in ${registry.source} (known: ${registry.models.map((m) => m.id).join(", ")})\n`);
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
