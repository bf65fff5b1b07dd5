import { z } from "zod";
import { ErrorEnvelopeSchema, errorCodes, EventsQuerySchema, WsFrameSchema } from "@aide/contracts";
import type { RouteDefinition } from "./route-definition.js";
import { httpStatusFor } from "./http-errors.js";

type JsonSchema = Record<string, unknown>;

const errorCodeSchema = { type: "string", description: "A code from the catalog (contracts/src/errors.ts, docs/errors.md)" };

/**
 * Error codes appear as a plain string that points at docs/errors.md: the catalog grows with every
 * service, and the document should change when the API does, not when a service adds a code.
 */
function replaceErrorCodeEnums(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(replaceErrorCodeEnums);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.enum) && record.enum.length === errorCodes.length && errorCodes.every((code) => (record.enum as unknown[]).includes(code))) return errorCodeSchema;
  return Object.fromEntries(Object.entries(record).map(([key, child]) => [key, replaceErrorCodeEnums(child)]));
}

function jsonSchema(schema: z.ZodTypeAny, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return replaceErrorCodeEnums(rest) as JsonSchema;
}

/** Query (or path) parameters: one entry per property of the (object) schema. */
function parameters(schema: z.ZodTypeAny, place: "query" | "path" = "query"): JsonSchema[] {
  const object = jsonSchema(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: place,
    required: place === "path" || (object.required ?? []).includes(name),
    schema: property,
  }));
}

const commonErrors = ["VALIDATION", "UNAUTHORIZED", "FORBIDDEN_ORIGIN", "FORBIDDEN_HOST", "RATE_LIMITED", "UNAVAILABLE", "INTERNAL"];

function responses(route: RouteDefinition): Record<string, unknown> {
  const result: Record<string, unknown> = {
    "200": route.produces
      ? { description: "OK: the file", content: Object.fromEntries(route.produces.map((type) => [type, { schema: { type: "string" } }])) }
      : { description: "OK", content: { "application/json": { schema: jsonSchema(route.reply, "output") } } },
  };
  const codes = [...commonErrors, ...(route.method === "POST" ? ["BAD_JSON", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"] : []), ...route.errors];
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = httpStatusFor(code as never);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    result[String(status)] = {
      description: `Error: ${[...new Set(list)].join(", ")}`,
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
    };
  }
  return result;
}

/** A Fastify url (`/api/eval/latest/:name`) as an OpenAPI path (`/api/eval/latest/{name}`). */
export function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, "{$1}");
}

/** The OpenAPI 3.1 document of the gateway, generated from the same schemas that validate requests. */
export function buildOpenApiDocument(routes: RouteDefinition[], version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const url = openApiPath(route.url);
    const operation: Record<string, unknown> = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${url.replace(/\/api/, "").replace(/[/{}]+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
      security: [{ bearer: [] }],
      responses: responses(route),
    };
    const routeParameters = [...(route.params ? parameters(route.params, "path") : []), ...(route.query ? parameters(route.query) : [])];
    if (routeParameters.length > 0) operation.parameters = routeParameters;
    if (route.body) operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(route.body, "input") } } };
    paths[url] = { ...paths[url], [route.method.toLowerCase()]: operation };
  }
  paths["/api/events"] = {
    get: {
      summary: "WebSocket: the session's events replayed after `since`, then live (upgrade with the bearer token)",
      operationId: "getEvents",
      security: [{ bearer: [] }],
      parameters: parameters(EventsQuerySchema),
      responses: {
        "101": { description: "Switching protocols; each message is one frame", content: { "application/json": { schema: jsonSchema(WsFrameSchema, "output") } } },
        "401": { description: "Error: UNAUTHORIZED", content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } } },
        "403": { description: "Error: FORBIDDEN_ORIGIN, FORBIDDEN_HOST", content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } } },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "aide gateway", version, description: "The local REST and WebSocket API of aide. Listens on 127.0.0.1 only; every route needs the bearer token." },
    servers: [{ url: "http://127.0.0.1:4280" }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { ErrorEnvelope: jsonSchema(ErrorEnvelopeSchema, "output") },
    },
    paths,
  };
}
