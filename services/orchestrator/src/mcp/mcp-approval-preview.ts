import { createHash } from "node:crypto";
import { ToolPreviewSchema, type ToolPreview } from "@aide/contracts";
import type { BatchCall } from "../session/session-record.js";

/** Keys sorted at every level: the same arguments always give the same text and digest. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What the person approves for an MCP call: the server, the tool and the exact arguments, as
 * the command text (clients render it with renderUntrusted, so control and invisible
 * characters are shown) and bound to a digest of those arguments.
 */
export function mcpApprovalPreview(call: BatchCall, server: string, tool: string): ToolPreview {
  const argumentsJson = canonicalJson(call.arguments);
  return ToolPreviewSchema.parse({
    call_id: call.id,
    name: call.name,
    kind: "other",
    mutating: true,
    command: `MCP server "${server}" tool "${tool}" arguments ${argumentsJson}`,
    args_digest: createHash("sha256").update(`${server}\n${tool}\n${argumentsJson}`).digest("hex"),
  });
}
