import { renderUntrusted, type McpList, type ToolDescriptor } from "@aide/contracts";

/**
 * The MCP tools as catalog entries. `read_only` is false for every one of them: the server's
 * `readOnlyHint` is shown to the person, never trusted to skip the gate (a tool's own
 * claim never decides `requires_approval`). Only the person's own rule in mcp.json (`auto_approved`) does that.
 */
export function mcpDescriptors(list: McpList | undefined): ToolDescriptor[] {
  if (!list) return [];
  // A server is flagged by all its tools' hidden characters: a poisoned description of one tool speaks for the server.
  const hiddenByServer = new Map<string, number>();
  for (const tool of list.tools) hiddenByServer.set(tool.server, (hiddenByServer.get(tool.server) ?? 0) + (tool.hidden_characters ?? 0));
  return list.tools.map((tool) => ({
    name: tool.name,
    // The MCP service rendered it already; rendered again here (idempotent), as the model's input is where it matters.
    description: renderUntrusted(`[MCP server ${tool.server}] ${tool.description || tool.tool}`.slice(0, 1200), { target: "model", invisible: true }).text,
    parameters: tool.parameters,
    read_only: false,
    parallel_safe: false,
    handled_by: "mcp" as const,
    mcp: {
      server: tool.server,
      tool: tool.tool,
      ...(tool.read_only_hint === undefined ? {} : { read_only_hint: tool.read_only_hint }),
      auto_approved: tool.auto_approved,
      ...(hiddenByServer.get(tool.server) ? { hidden_characters: hiddenByServer.get(tool.server) } : {}),
    },
  }));
}

/** The run's catalog: the tools service's and orchestrator's tools, then the MCP tools whose names do not clash. */
export function withMcpTools(catalog: ToolDescriptor[], list: McpList | undefined): ToolDescriptor[] {
  const names = new Set(catalog.map((tool) => tool.name));
  return [...catalog, ...mcpDescriptors(list).filter((tool) => !names.has(tool.name))];
}

/** The MCP server of a catalog entry (for events), when it is an MCP tool. */
export function mcpServerOf(catalog: ToolDescriptor[], name: string): string | undefined {
  return catalog.find((tool) => tool.name === name)?.mcp?.server;
}
