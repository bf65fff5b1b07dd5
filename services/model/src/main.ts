import { join } from "node:path";
import { encodeJson, runService, startService } from "@aide/runtime";
import { modelDeltaSubject, modelProgressSubject, type ModelReloadRequest } from "@aide/contracts";
import { modelEndpoints } from "./endpoints.js";
import { ModelEngine } from "./model-engine.js";
import { createProviders } from "./providers.js";
import { aideHome, loadRegistry, mergeRegistry, parseRegistry, registryPath } from "./registry.js";
import { discoverySettings } from "./discovery/discovery-settings.js";
import { discoverFiles } from "./discovery/discover-files.js";
import { discoverServers } from "./discovery/discover-servers.js";
import { modelStateDir, ProfileStore } from "./probe/profile-store.js";
import { watchRegistry } from "./registry-watch.js";
import { readModelLoadLimits } from "./load-limits.js";

function deltaInterval(raw: string | undefined): number {
  const value = Number.parseInt(raw ?? "", 10);
  return Number.isFinite(value) && value >= 0 ? value : 25;
}

await runService("model", async ({ connection, logger }) => {
  const env = process.env;
  const home = aideHome(env);
  const registry = await loadRegistry(env);
  const describe = (r: typeof registry) => ({ source: r.source, default: r.default, models: r.models.map((m) => `${m.id}:${m.provider}`), discovery: r.report, ...(r.hint ? { hint: r.hint } : {}) });
  logger.info(describe(registry), "model registry");
  const providers = createProviders({ env, logger: logger.child({ module: "providers" }) });
  const trials = Number.parseInt(env.AIDE_MODEL_PROBE_TRIALS ?? "", 10);
  const engine = new ModelEngine({
    registry,
    providers,
    logger: logger.child({ module: "engine" }),
    // AIDE_MODEL_DELTA_MS: the delta coalescing window (0: one delta per chunk).
    deltaIntervalMs: deltaInterval(env.AIDE_MODEL_DELTA_MS),
    publishDelta: (delta) => connection.publish(modelDeltaSubject(delta.request_id), encodeJson(delta)),
    home,
    profiles: new ProfileStore(join(modelStateDir(home), "profiles")),
    probeTrials: trials >= 0 ? trials : 3,
  });
  /** The document sent by the supervisor (it sees the file outside this sandbox), else the file again. */
  const reload = async (request: ModelReloadRequest) => {
    if (request.document === undefined) return loadRegistry(env);
    // null: the file was removed; the registry is what discovery finds.
    const configured = request.document === null ? undefined : parseRegistry(request.document, request.source ?? "agent.model.reload");
    const settings = discoverySettings(env);
    const [files, servers] = await Promise.all([discoverFiles(join(home, "models"), settings.maxContext), discoverServers(settings)]);
    return mergeRegistry(configured, [...files, ...servers.specs], home, servers.report);
  };
  const limits = readModelLoadLimits(env);
  const service = await startService({
    connection,
    name: "aide-model",
    version: "0.1.0",
    description: "Models: local GGUF (node-llama-cpp), OpenAI-compatible endpoints, scripted transcripts; discovery and the capability probe",
    endpoints: modelEndpoints(engine, { reload, publishProgress: (token, progress) => connection.publish(modelProgressSubject(token), encodeJson(progress)) }),
    logger,
    maxConcurrent: limits.maxConcurrent,
    maxQueued: limits.maxQueued,
    maxQueuedPerSession: limits.maxQueuedPerSession,
  });
  const unwatch = watchRegistry(
    { configFile: registryPath(env), modelsDir: join(home, "models") },
    () => {
      loadRegistry(env).then(
        (next) => {
          engine.setRegistry(next);
          logger.info(describe(next), "model registry reloaded");
        },
        (error: Error) => logger.warn({ err: error }, "the changed model registry was refused; the previous one stays"),
      );
    },
    logger,
  );
  return async () => {
    unwatch();
    // Abort generations, let their handlers reply, then unload the models.
    engine.abortAll();
    await service.stop();
    await engine.close();
  };
});
