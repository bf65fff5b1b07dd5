import { z } from "zod";
import type { ToolDescriptor } from "@aide/contracts";
import type { AnyTool } from "./tool-types.js";

/**
 * The JSON Schema the model sees. zod renders the output side (typed numbers and booleans even
 * though the string forms are accepted); a field with a default is not required from the model.
 */
export function parametersJsonSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.parameters as z.ZodType) as Record<string, unknown>;
  delete schema.$schema;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  if (Array.isArray(schema.required)) {
    schema.required = (schema.required as string[]).filter((name) => properties[name]?.default === undefined);
    if ((schema.required as string[]).length === 0) delete schema.required;
  }
  return schema;
}

export function describeTool(tool: AnyTool): ToolDescriptor {
  return {
    name: tool.name,
    description: tool.description,
    parameters: parametersJsonSchema(tool),
    read_only: tool.readOnly,
    parallel_safe: tool.parallelSafe,
    handled_by: "tools",
  };
}
