import type { AnyTool } from "./tool-types.js";

/** The catalog is a plain array; lookups are by exact name. */
export interface ToolRegistry {
  tools: readonly AnyTool[];
  find(name: string): AnyTool | undefined;
}

export function createToolRegistry(tools: readonly AnyTool[]): ToolRegistry {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return { tools, find: (name) => byName.get(name) };
}
