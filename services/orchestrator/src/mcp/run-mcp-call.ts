import type { ToolDescriptor } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import { stringArgs } from "../run/run-policies.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { errorOutcome, refusal } from "../turn/call-outcomes.js";
import { requestApproval } from "../turn/gate-approval.js";
import { execute } from "../turn/run-tool-call.js";
import { canonicalJson, mcpApprovalPreview } from "./mcp-approval-preview.js";

/**
 * An MCP tool call through the same gate as every mutation: the retry guards, then the
 * person's approval (server, tool, exact arguments) unless their own rule in mcp.json allows
 * that server/tool. Plan mode and read-only agents never reach here (MCP tools are not
 * read-only, so routing does not offer them there); the refusal below is the backstop.
 * No checkpoint: an MCP server's effects are outside the workspace's shadow repository.
 */
export async function runMcpCall(context: RunContext, call: BatchCall, descriptor: ToolDescriptor): Promise<CallOutcome> {
  const mcp = descriptor.mcp;
  if (!mcp) return errorOutcome(`No MCP server is recorded for ${call.name}.`);
  const record = context.session.record;
  if (record.mode === "plan" || context.readOnlyAgent) {
    return refusal(`Refused: ${call.name} is an MCP tool and may change things outside the workspace; it is not available in ${record.mode === "plan" ? "Plan mode" : "a read-only agent"}.`);
  }
  const verdict = context.policies.guards.check({ name: call.name, arguments: stringArgs(call.arguments) });
  if (verdict.blocked) return refusal(verdict.message);
  if (mcp.auto_approved) {
    await context.session.emit("approval.decided", { approval: `auto-${call.id}`, decision: "auto" }, context.depth, context.run);
  } else {
    const preview = mcpApprovalPreview(call, mcp.server, mcp.tool);
    const decision = await requestApproval(context, {
      call,
      preview,
      network: "none",
      networkTokens: [],
      needsProtectedConfirmation: false,
      kind: "tool",
      mcp: { server: mcp.server, tool: mcp.tool, arguments_json: canonicalJson(call.arguments), ...(mcp.hidden_characters ? { hidden_characters: mcp.hidden_characters } : {}) },
    });
    switch (decision.decision) {
      case "approve":
        break;
      case "abort":
        context.outcome = { kind: "aborted", reason: decision.feedback ?? "aborted by the person at an approval" };
        return errorOutcome("The person aborted the run.");
      case "timeout":
        return errorOutcome("Not run: nobody approved this MCP call in time (default deny).", { denied: "timeout" });
      case "reject": {
        if (decision.source === "policy")
          return errorOutcome(`Not run: the session's approval policy covers no such call (${decision.feedback ?? "deny_unmatched"}).`, { denied: "rejected", refused_by: "policy" });
        const feedback = decision.feedback ? ` Their feedback: ${decision.feedback}` : "";
        return errorOutcome(`The person rejected this MCP call; it was not sent to the server.${feedback}`, { denied: "rejected" });
      }
      default: {
        const never: never = decision.decision;
        throw new Error(`unknown decision ${String(never)}`);
      }
    }
  }
  call.status = "approved";
  await context.persist();
  return execute(context, call, { network: false });
}
