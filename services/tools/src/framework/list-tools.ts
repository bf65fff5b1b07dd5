import { z } from "zod";
import type { ToolDescriptor } from "@aide/contracts";
import type { AnyTool } from "./tool-types.js";

type JsonObject = Record<string, unknown>;

/** A field with a default is not required from the model. */
function withoutDefaulted(schema: JsonObject): void {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  if (Array.isArray(schema.required)) {
    schema.required = (schema.required as string[]).filter((name) => properties[name]?.default === undefined);
    if ((schema.required as string[]).length === 0) delete schema.required;
  }
}

/**
 * The JSON Schema the model sees. zod renders the output side (typed numbers and booleans even
 * though the string forms are accepted); a field with a default is not required from the model.
 * A union of argument sets (replace_in_file: `diff`, or `search` with `replace`) is one object
 * with every property and the keys all sets share required, plus `anyOf` with the sets
 * themselves: readers of `properties` keep working, and the tool-call grammar and the model see
 * the same either/or rule the validator enforces.
 */
export function parametersJsonSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.parameters as z.ZodType) as JsonObject;
  delete schema.$schema;
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonObject[]) : undefined;
  if (branches !== undefined && schema.properties === undefined && branches.every((branch) => branch.type === "object")) {
    const properties: Record<string, unknown> = {};
    for (const branch of branches) {
      withoutDefaulted(branch);
      Object.assign(properties, branch.properties ?? {});
    }
    const sets = branches.map((branch) => new Set((branch.required ?? []) as string[]));
    const shared = [...sets[0]].filter((name) => sets.every((set) => set.has(name)));
    return { type: "object", properties, ...(shared.length > 0 ? { required: shared } : {}), additionalProperties: false, anyOf: branches };
  }
  withoutDefaulted(schema);
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
