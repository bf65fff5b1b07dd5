import { aideError, McpCallRequestSchema, McpCancelRequestSchema, McpConfigSchema, McpListRequestSchema, McpReloadRequestSchema, mcpSubjects } from "@aide/contracts";
import { defineEndpoint, type Endpoint } from "@aide/runtime";
import type { Logger } from "pino";
import { formatIssues } from "./config/format-issues.js";
import type { ServerRegistry } from "./servers/server-registry.js";

/**
 * An info line written once the current step is done (`setImmediate`): for a call, after its
 * request is on its way to the server and after its reply is on the bus, so building the line
 * (pino with the redaction of every line) overlaps the server's and the bus's work instead of
 * adding to the call's latency (measured: about 0.2–0.5 ms a call at info, two lines). The same
 * lines, in the same order.
 */
function logSoon(logger: Logger, fields: Record<string, unknown>, message: string): void {
  setImmediate(() => logger.info(fields, message));
}

/** `agent.mcp.*`: list the catalog, call a tool, cancel an in-flight call, the servers' states. */
export function mcpEndpoints(registry: ServerRegistry, now: () => number = Date.now): Endpoint[] {
  const inFlight = new Map<string, AbortController>();
  // A cancel can overtake its call on the bus (different subjects): remembered for a while, the call is then refused on arrival.
  const cancelledEarly = new Map<string, number>();
  const earlyTtlMs = 10 * 60_000;
  const forget = () => {
    for (const [id, at] of cancelledEarly) if (now() - at > earlyTtlMs) cancelledEarly.delete(id);
  };
  return [
    defineEndpoint({
      name: "reload",
      subject: mcpSubjects.reload,
      schema: McpReloadRequestSchema,
      async handle(request, context) {
        // Validated as at start; a bad file changes nothing (the running servers stay).
        const parsed = McpConfigSchema.safeParse(request.document ?? {});
        if (!parsed.success) throw aideError("CONFIG_INVALID", { detail: `${request.source}: ${formatIssues(parsed.error)}` });
        const result = await registry.reload(parsed.data, request.source);
        context.logger.info(result, "mcp.json reloaded");
        return result;
      },
    }),
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
        if (cancelledEarly.delete(request.call_id)) {
          context.logger.info({ server: request.server, tool: request.tool, call: request.call_id, error_code: "MCP_CALL_CANCELLED" }, "MCP call ended");
          return {
            is_error: true,
            output: "The MCP call was cancelled before it started: the run was aborted. It was not sent to the server.",
            truncated: false,
            error_code: "MCP_CALL_CANCELLED",
            duration_ms: 0,
          };
        }
        const controller = new AbortController();
        const onDrain = () => controller.abort("the MCP service is stopping");
        context.signal.addEventListener("abort", onDrain, { once: true });
        inFlight.set(request.call_id, controller);
        try {
          const timeoutMs = request.timeout_ms ?? 60_000;
          logSoon(context.logger, { server: request.server, tool: request.tool, call: request.call_id }, "MCP call");
          const result = await server.call(request.tool, request.arguments, { timeoutMs, signal: controller.signal });
          logSoon(
            context.logger,
            {
              server: request.server,
              tool: request.tool,
              call: request.call_id,
              is_error: result.is_error,
              ...(result.error_code ? { error_code: result.error_code } : {}),
              duration_ms: result.duration_ms,
            },
            "MCP call ended",
          );
          return result;
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
        if (!controller) {
          forget();
          if (cancelledEarly.size < 10_000) cancelledEarly.set(request.call_id, now());
        }
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
