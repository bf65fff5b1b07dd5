import { defineEndpoint, type Endpoint } from "@aide/runtime";
import { ModelAbortRequestSchema, ModelChatRequestSchema, ModelListRequestSchema, subjects } from "@aide/contracts";
import type { ModelEngine } from "./model-engine.js";

/** The bus surface: agent.model.chat, agent.model.list, agent.model.abort. */
export function modelEndpoints(engine: ModelEngine): Endpoint[] {
  return [
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
  ];
}
