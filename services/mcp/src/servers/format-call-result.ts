/** What of a result reaches the orchestrator at most (the orchestrator caps again for the model's window). */
export const maxOutputChars = 24_000;

type ContentPart = { type: string; text?: unknown; mimeType?: unknown; data?: unknown; uri?: unknown; name?: unknown; resource?: unknown };

function describePart(part: ContentPart): string {
  switch (part.type) {
    case "text":
      return typeof part.text === "string" ? part.text : "";
    case "image":
    case "audio":
      return `[${part.type} ${String(part.mimeType ?? "")}, ${typeof part.data === "string" ? Math.floor((part.data.length * 3) / 4) : 0} bytes: not shown to the model]`;
    case "resource_link":
      return `[resource link ${String(part.uri ?? "")}${part.name ? ` (${String(part.name)})` : ""}]`;
    case "resource": {
      const resource = (part.resource ?? {}) as { uri?: unknown; text?: unknown; mimeType?: unknown };
      return typeof resource.text === "string"
        ? `[resource ${String(resource.uri ?? "")}]\n${resource.text}`
        : `[binary resource ${String(resource.uri ?? "")} ${String(resource.mimeType ?? "")}: not shown]`;
    }
    default:
      return `[a ${JSON.stringify(part.type).slice(0, 40)} part: not shown]`;
  }
}

/**
 * An MCP `CallToolResult` as one text: text parts as they are, a one-line note for images, audio
 * and resources, `structuredContent` as JSON when there is no content. Capped with a marker.
 * It stays untrusted data: the orchestrator wraps and escapes it before the model reads it.
 */
export function formatCallResult(result: { content?: unknown; structuredContent?: unknown; isError?: unknown }): { output: string; truncated: boolean; isError: boolean } {
  const parts = Array.isArray(result.content) ? (result.content as ContentPart[]) : [];
  let output = parts.map(describePart).join("\n");
  if (output === "" && result.structuredContent !== undefined) output = JSON.stringify(result.structuredContent);
  const truncated = output.length > maxOutputChars;
  if (truncated) output = `${output.slice(0, maxOutputChars)}\n[… ${output.length - maxOutputChars} more characters of this MCP result were cut]`;
  return { output, truncated, isError: result.isError === true };
}
