import { defineEndpoint, type Endpoint } from "@aide/runtime";
import {
  ModelAbortRequestSchema,
  ModelChatRequestSchema,
  ModelListRequestSchema,
  ModelProbeRequestSchema,
  ModelReloadRequestSchema,
  subjects,
  type ModelProbeProgress,
  type ModelReloadRequest,
} from "@aide/contracts";
import { throttledProgress } from "./probe/progress-publisher.js";
import type { ModelEngine } from "./model-engine.js";
import type { ModelRegistry } from "./model-spec.js";

export interface ModelEndpointOptions {
  /** Builds the registry again (from the document sent, or from the file); throws CONFIG_INVALID. */
  reload?(request: ModelReloadRequest): Promise<ModelRegistry>;
  /** Sends one probe progress report to `agent.model.progress.<token>`; must not throw. */
  publishProgress?(token: string, progress: ModelProbeProgress): void;
}

/** The bus surface: agent.model.chat, .list, .abort, .reload, .probe. */
export function modelEndpoints(engine: ModelEngine, options: ModelEndpointOptions = {}): Endpoint[] {
  const endpoints: Endpoint[] = [
    defineEndpoint({
      name: "chat",
      subject: subjects.model.chat,
      schema: ModelChatRequestSchema,
      handle: (request, { signal }) => engine.chat(request, signal),
    }),
    defineEndpoint({
      name: "list",
      subject: subjects.model.list,
      schema: ModelListRequestSchema,
      handle: () => engine.list(),
    }),
    defineEndpoint({
      name: "abort",
      subject: subjects.model.abort,
      schema: ModelAbortRequestSchema,
      handle: async (request) => engine.abort(request.request_id),
    }),
    defineEndpoint({
      name: "probe",
      subject: subjects.model.probe,
      schema: ModelProbeRequestSchema,
      handle: (request, { signal }) => {
        const token = request.progress;
        const publish = options.publishProgress;
        const onProgress = token !== undefined && publish ? throttledProgress((progress) => publish(token, progress)) : undefined;
        return engine.probe(
          request.model,
          { refresh: request.refresh, automatic: request.automatic, ...(request.trials !== undefined ? { trials: request.trials } : {}), ...(onProgress ? { onProgress } : {}) },
          signal,
        );
      },
    }),
  ];
  const reload = options.reload;
  if (reload) {
    endpoints.push(
      defineEndpoint({
        name: "reload",
        subject: subjects.model.reload,
        schema: ModelReloadRequestSchema,
        async handle(request) {
          // A bad document is refused (CONFIG_INVALID naming the field) and the old registry stays.
          const registry = await reload(request);
          engine.setRegistry(registry);
          return { source: registry.source, default: registry.default, models: registry.models.map((spec) => spec.id) };
        },
      }),
    );
  }
  return endpoints;
}
