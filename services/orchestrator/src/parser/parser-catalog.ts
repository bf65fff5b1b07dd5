import type { ToolSpecForParser } from "./tool-spec.js";

/** One tool with its parameter lookup (lowercase tag → canonical name, aliases included). */
export type ToolEntry = { spec: ToolSpecForParser; params: Map<string, string>; closeNames: Set<string> };

/** Lowercase tool tag (name or alias) → tool. */
export type ParserCatalog = { tools: Map<string, ToolEntry>; knownList: string };

export function buildParserCatalog(specs: ToolSpecForParser[]): ParserCatalog {
  const tools = new Map<string, ToolEntry>();
  for (const spec of specs) {
    const lowerName = spec.name.toLowerCase();
    const params = new Map<string, string>();
    for (const param of spec.params) params.set(param.toLowerCase(), param);
    const entry: ToolEntry = { spec, params, closeNames: new Set([lowerName]) };
    tools.set(lowerName, entry);
    for (const [alias, target] of Object.entries(spec.aliases ?? {})) {
      const lowerAlias = alias.toLowerCase();
      if (target.toLowerCase() === lowerName) {
        entry.closeNames.add(lowerAlias);
        if (!tools.has(lowerAlias)) tools.set(lowerAlias, entry);
        continue;
      }
      const canonical = spec.params.find((param) => param.toLowerCase() === target.toLowerCase());
      if (canonical !== undefined && !params.has(lowerAlias)) params.set(lowerAlias, canonical);
    }
  }
  return { tools, knownList: specs.map((spec) => spec.name).join(", ") };
}
