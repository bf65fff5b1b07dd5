import type { McpList, ToolDescriptor } from "@aide/contracts";

/**
 * The MCP tools as catalog entries. `read_only` is false for every one of them: the server's
 * `readOnlyHint` is shown to the person, never trusted to skip the gate (seed 000 on
 * `requires_approval`). Only the person's own rule in mcp.json (`auto_approved`) does that.
 */
export function mcpDescriptors(list: McpList | undefined): ToolDescriptor[] {
  if (!list) return [];
  return list.tools.map((tool) => ({
    name: tool.name,
    description: `[MCP server ${tool.server}] ${tool.description || tool.tool}`.slice(0, 1200),
    parameters: tool.parameters,
    read_only: false,
    parallel_safe: false,
    handled_by: "mcp" as const,
    mcp: { server: tool.server, tool: tool.tool, ...(tool.read_only_hint === undefined ? {} : { read_only_hint: tool.read_only_hint }), auto_approved: tool.auto_approved },
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
