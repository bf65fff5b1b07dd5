import { encodeJson, runService, startService } from "@aide/runtime";
import { modelDeltaSubject } from "@aide/contracts";
import { modelEndpoints } from "./endpoints.js";
import { ModelEngine } from "./model-engine.js";
import { createProviders } from "./providers.js";
import { loadRegistry } from "./registry.js";

function deltaInterval(raw: string | undefined): number {
  const value = Number.parseInt(raw ?? "", 10);
  return Number.isFinite(value) && value >= 0 ? value : 25;
}

await runService("model", async ({ connection, logger }) => {
  const registry = loadRegistry(process.env);
  logger.info({ source: registry.source, default: registry.default, models: registry.models.map((m) => `${m.id}:${m.provider}`) }, "model registry");
  const providers = createProviders({ env: process.env, logger: logger.child({ module: "providers" }) });
  const engine = new ModelEngine({
    registry,
    providers,
    logger: logger.child({ module: "engine" }),
    // AIDE_MODEL_DELTA_MS: the delta coalescing window (0: one delta per chunk).
    deltaIntervalMs: deltaInterval(process.env.AIDE_MODEL_DELTA_MS),
    publishDelta: (delta) => connection.publish(modelDeltaSubject(delta.request_id), encodeJson(delta)),
  });
  const service = await startService({
    connection,
    name: "aide-model",
    version: "0.1.0",
    description: "Models: local GGUF (node-llama-cpp), OpenAI-compatible endpoints, scripted transcripts",
    endpoints: modelEndpoints(engine),
    logger,
  });
  return async () => {
    // Abort generations, let their handlers reply, then unload the models.
    engine.abortAll();
    await service.stop();
    await engine.close();
  };
});
