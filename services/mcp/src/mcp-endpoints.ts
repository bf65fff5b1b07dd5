import { aideError, McpCallRequestSchema, McpCancelRequestSchema, McpListRequestSchema, mcpSubjects } from "@aide/contracts";
import { defineEndpoint, type Endpoint } from "@aide/runtime";
import type { ServerRegistry } from "./servers/server-registry.js";

/** `agent.mcp.*`: list the catalog, call a tool, cancel an in-flight call, the servers' states. */
export function mcpEndpoints(registry: ServerRegistry): Endpoint[] {
  const inFlight = new Map<string, AbortController>();
  return [
    defineEndpoint({
      name: "list",
      subject: mcpSubjects.list,
      schema: McpListRequestSchema,
      handle: (request) => registry.list(request.workspace),
    }),
    defineEndpoint({
      name: "call",
      subject: mcpSubjects.call,
      schema: McpCallRequestSchema,
      async handle(request, context) {
        const server = await registry.find(request.server, request.workspace);
        if (!server) throw aideError("MCP_SERVER_NOT_FOUND", { server: request.server, detail: "not in $AIDE_HOME/mcp.json nor in a trusted .mcp.json of this workspace" });
        if (inFlight.has(request.call_id)) throw aideError("CALL_ID_CONFLICT", { call: request.call_id, detail: "a call with this id is in flight" });
        const controller = new AbortController();
        const onDrain = () => controller.abort("the MCP service is stopping");
        context.signal.addEventListener("abort", onDrain, { once: true });
        inFlight.set(request.call_id, controller);
        try {
          const timeoutMs = request.timeout_ms ?? 60_000;
          context.logger.info({ server: request.server, tool: request.tool, call: request.call_id }, "MCP call");
          return await server.call(request.tool, request.arguments, { timeoutMs, signal: controller.signal });
        } finally {
          inFlight.delete(request.call_id);
          context.signal.removeEventListener("abort", onDrain);
        }
      },
    }),
    defineEndpoint({
      name: "cancel",
      subject: mcpSubjects.cancel,
      schema: McpCancelRequestSchema,
      async handle(request, context) {
        const controller = inFlight.get(request.call_id);
        controller?.abort("the run was aborted");
        context.logger.info({ call: request.call_id, in_flight: controller !== undefined }, "MCP call cancel requested");
        return { cancelled: controller !== undefined };
      },
    }),
    defineEndpoint({
      name: "status",
      subject: mcpSubjects.status,
      schema: McpListRequestSchema,
      handle: async () => registry.snapshot(),
    }),
  ];
}
