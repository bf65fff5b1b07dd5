import { z } from "zod";
import { HealthSchema, ModelListReplySchema, serviceNames, subjects } from "@aide/contracts";
import { defineRoute, resultOf, type RouteDefinition } from "../route-definition.js";

export function systemRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: "GET",
      url: "/api/models",
      summary: "The models the model service can serve, and the default",
      reply: resultOf(ModelListReplySchema),
      errors: [],
      handle: (_input, { bus }) => bus.request(subjects.model.list, {}, ModelListReplySchema),
    }),
    defineRoute({
      method: "GET",
      url: "/api/health",
      summary: "Which services answer $SRV.PING",
      reply: HealthSchema,
      errors: [],
      async handle(_input, { bus, version }) {
        const others = serviceNames.filter((name) => name !== "gateway");
        const answers = await Promise.all(others.map((name) => bus.ping(name, 1000)));
        const services: Record<string, boolean> = { gateway: true };
        others.forEach((name, index) => (services[name] = answers[index]));
        return HealthSchema.parse({ ok: answers.every(Boolean), services, version });
      },
    }),
  ];
}

export const OpenApiDocumentSchema = z.record(z.string(), z.unknown());
