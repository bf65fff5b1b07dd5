import { AideError, type ToolDescriptor } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";

/**
 * Sends an approved call to the MCP service. An abort of the run cancels the call there too
 * (`agent.mcp.cancel`, which sends MCP `notifications/cancelled` to the server). The outcome
 * changes no workspace path as far as the run knows (never evidence) and names its server.
 */
export async function callMcp(context: RunContext, call: BatchCall, descriptor: ToolDescriptor): Promise<CallOutcome> {
  const mcp = descriptor.mcp!;
  const port = context.seams.mcp;
  const metadata = { mcp_server: mcp.server, mcp_tool: mcp.tool, untrusted: true };
  if (!port) return { is_error: true, output: "No MCP service is connected.", metadata: { ...metadata, error_code: "MCP_SERVER_NOT_FOUND" }, changed_paths: [], notices: [] };
  const signal = context.session.signal;
  if (signal.aborted)
    return { is_error: true, output: "Not sent to the MCP server: the run was aborted.", metadata: { ...metadata, error_code: "MCP_CALL_CANCELLED" }, changed_paths: [], notices: [] };
  const onAbort = () => void port.cancel(call.id);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await port.call({
      session: context.session.record.id,
      call_id: call.id,
      server: mcp.server,
      tool: mcp.tool,
      arguments: call.arguments,
      workspace: context.session.record.workspace,
    });
    return {
      is_error: result.is_error,
      output: result.output,
      metadata: { ...metadata, ...(result.error_code ? { error_code: result.error_code } : {}), ...(result.truncated ? { truncated: true } : {}) },
      changed_paths: [],
      notices: [],
    };
  } catch (error) {
    const message = error instanceof AideError ? `${error.code}: ${error.message}` : (error as Error).message;
    return {
      is_error: true,
      output: `The MCP call could not run: ${message}`,
      metadata: { ...metadata, ...(error instanceof AideError ? { error_code: error.code } : {}) },
      changed_paths: [],
      notices: [],
    };
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
