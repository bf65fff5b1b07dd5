import { z } from "zod";
import { ErrorEnvelopeSchema, errorCodes, EventsQuerySchema, WsFrameSchema } from "@aide/contracts";
import type { RouteDefinition } from "./route-definition.js";
import { httpStatusFor } from "./http-errors.js";
import { operationLinks } from "./openapi-links.js";

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

/** `post` + `/api/agent/auto-approve` → `postAgentAutoApprove`; `/api/eval/latest/{name}` → `getEvalLatestName`. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api/, "")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

function responses(route: RouteDefinition, operationId: string): Record<string, unknown> {
  const links = operationLinks[operationId];
  const result: Record<string, unknown> = {
    "200": {
      ...(route.produces
        ? { description: "OK: the file", content: Object.fromEntries(Object.entries(route.produces).map(([type, schema]) => [type, { schema: jsonSchema(schema, "output") }])) }
        : { description: "OK", content: { "application/json": { schema: jsonSchema(route.reply, "output") } } }),
      ...(links && Object.keys(links).length > 0 ? { links } : {}),
    },
  };
  const codes = [...commonErrors, ...(route.method === "POST" ? ["BAD_JSON", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"] : []), ...route.errors];
  return { ...result, ...errorResponses(codes), ...headTooLarge };
}

/** Node's HTTP parser answers a request whose head (URL and headers) passes 16 KB itself: no body. */
const headTooLarge = { "431": { description: "The request's URL and headers are larger than 16 KB (answered by the HTTP parser, with no body)" } };

/** One response per HTTP status the codes map to, each naming its codes. */
function errorResponses(codes: string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
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
    const operationId = operationIdOf(route.method, url);
    const operation: Record<string, unknown> = {
      summary: route.summary,
      operationId,
      security: [{ bearer: [] }],
      responses: responses(route, operationId),
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
        // A plain GET (no Upgrade header) is answered 426; an upgrade refused, with its code.
        ...errorResponses([...commonErrors, "BUSY", "UPGRADE_REQUIRED"]),
        ...headTooLarge,
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
