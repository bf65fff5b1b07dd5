import { toolArgumentAliases, type ToolDescriptor } from "@aide/contracts";

/**
 * What the parser needs to know about one tool. `params` lists every parameter the tool
 * documents (optional ones included); `required` is the subset that must be present.
 * `aliases` maps alternative tag names to canonical ones, for the tool name and for params
 * alike (compared case-insensitively): `{ write_to_file: "write_file", file_path: "path" }`.
 */
export type ToolSpecForParser = {
  name: string;
  params: string[];
  required: string[];
  aliases?: Record<string, string>;
};

/**
 * Names that models trained on other agents (Cline, Claude Code, aider) emit out of habit.
 * An alias is only added when its target exists in the catalog and it does not shadow a real name.
 */
const TOOL_NAME_ALIASES: Record<string, string> = {
  write_to_file: "write_file",
  create_file: "write_file",
  edit_file: "replace_in_file",
  str_replace: "replace_in_file",
  list_files: "list_dir",
  list_directory: "list_dir",
  search: "search_files",
  grep: "search_files",
  execute_command: "run_command",
  run_shell: "run_command",
  bash: "run_command",
  complete: "attempt_completion",
};

function jsonSchemaParams(parameters: Record<string, unknown>): { params: string[]; required: string[] } {
  const properties = parameters["properties"];
  const params = properties !== null && typeof properties === "object" ? Object.keys(properties as Record<string, unknown>) : [];
  const requiredRaw = parameters["required"];
  const required = Array.isArray(requiredRaw) ? requiredRaw.filter((entry): entry is string => typeof entry === "string" && params.includes(entry)) : [];
  return { params, required };
}

/** Builds parser specs from the catalog's JSON Schemas, adding the common habitual aliases. */
export function toParserSpecs(descriptors: ToolDescriptor[]): ToolSpecForParser[] {
  const toolNames = new Set(descriptors.map((descriptor) => descriptor.name.toLowerCase()));
  return descriptors.map((descriptor) => {
    const { params, required } = jsonSchemaParams(descriptor.parameters);
    const lowerParams = new Set(params.map((param) => param.toLowerCase()));
    const aliases: Record<string, string> = {};
    for (const [alias, target] of Object.entries(TOOL_NAME_ALIASES)) {
      if (target === descriptor.name && !toolNames.has(alias)) aliases[alias] = target;
    }
    for (const [alias, target] of Object.entries(toolArgumentAliases)) {
      if (params.includes(target) && !lowerParams.has(alias)) aliases[alias] = target;
    }
    return { name: descriptor.name, params, required, aliases };
  });
}
