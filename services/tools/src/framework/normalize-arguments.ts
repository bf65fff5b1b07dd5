import type { z } from "zod";
import { toolArgumentAliases } from "@aide/contracts";
import type { AnyTool } from "./tool-types.js";

export type NormalizedArguments = { ok: true; args: Record<string, unknown>; notices: string[] } | { ok: false; error: string; notices: string[] };

type Shaped = { shape?: Record<string, z.ZodType>; options?: Shaped[] };

/** The argument sets of a tool: one object, or each object of a union (replace_in_file). */
function objectsOf(tool: AnyTool): Record<string, z.ZodType>[] {
  const schema = tool.parameters as unknown as Shaped;
  if (schema.shape !== undefined) return [schema.shape];
  return (schema.options ?? []).map((option) => option.shape ?? {});
}

/** Every argument the tool accepts, over all its argument sets. */
function shapeOf(tool: AnyTool): Record<string, z.ZodType> {
  return Object.assign({}, ...objectsOf(tool)) as Record<string, z.ZodType>;
}

/** `path` with `diff`; or `path`, `search` and `replace`: the required keys of each argument set. */
function describeSets(tool: AnyTool): string {
  return objectsOf(tool)
    .map((shape) => {
      const names = Object.entries(shape)
        .filter(([, field]) => !field.safeParse(undefined).success)
        .map(([name]) => `\`${name}\``);
      return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names.join("");
    })
    .join("; or ");
}

function describeIssues(error: z.ZodError, tool: AnyTool, given: string[]): string {
  const toolName = tool.name;
  const lines = error.issues.slice(0, 6).map((issue) => {
    // A union's argument sets (replace_in_file): a mix of two sets is refused by each, so name the sets.
    const mixed = issue.code === "unrecognized_keys" && objectsOf(tool).length > 1 && issue.keys.every((key) => key in shapeOf(tool));
    if ((issue.code === "invalid_union" && issue.path.length === 0) || mixed) return `give exactly one of these argument sets: ${describeSets(tool)}`;
    if (issue.code === "unrecognized_keys") {
      return `unknown argument(s) ${issue.keys.map((k) => `\`${k}\``).join(", ")}`;
    }
    const name = issue.path.length > 0 ? `\`${issue.path.join(".")}\`` : "arguments";
    if (issue.code === "invalid_type" && issue.input === undefined) return `${name} is required`;
    return `${name}: ${issue.message}`;
  });
  return `Invalid arguments for ${toolName}: ${lines.join("; ")}. You sent: ${given.length > 0 ? given.join(", ") : "(nothing)"}.`;
}

/**
 * Repairs what models commonly get wrong (aliases such as `file_path` for `path`), reports each
 * repair, refuses unknown arguments with the list of accepted ones, then validates with zod
 * (which also coerces the string forms of numbers and booleans from the XML protocol).
 */
export function normalizeArguments(tool: AnyTool, raw: Record<string, unknown>): NormalizedArguments {
  const shape = shapeOf(tool);
  const accepted = Object.keys(shape);
  const aliases: Record<string, string> = { ...toolArgumentAliases, ...(tool.aliases ?? {}) };
  // Own keys only: `toString` or `constructor` sent as an argument name is not an inherited member.
  const known = (key: string) => Object.hasOwn(shape, key);
  const aliasOf = (key: string) => (Object.hasOwn(aliases, key) ? aliases[key] : undefined);
  const notices: string[] = [];
  const args: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    // `<cwd></cwd>` from the XML protocol: an empty optional argument is treated as not given.
    if (known(key) && typeof value === "string" && value.trim() === "" && !shape[key].safeParse(value).success && shape[key].safeParse(undefined).success) {
      notices.push(`\`${key}\` was empty and is treated as not given.`);
      continue;
    }
    if (known(key)) {
      args[key] = value;
      continue;
    }
    const lower = key.toLowerCase();
    const target = aliasOf(key) ?? aliasOf(lower) ?? (known(lower) ? lower : undefined);
    if (target !== undefined && known(target) && !Object.hasOwn(raw, target)) {
      args[target] = value;
      notices.push(`\`${key}\` was accepted as an alias of \`${target}\`; use \`${target}\` next time.`);
      continue;
    }
    unknown.push(key);
  }
  if (unknown.length > 0) {
    return {
      ok: false,
      notices,
      error: `Unknown argument(s) for ${tool.name}: ${unknown.map((k) => `\`${k}\``).join(", ")}. Accepted arguments: ${accepted.map((k) => `\`${k}\``).join(", ")}.`,
    };
  }
  const parsed = (tool.parameters as z.ZodType).safeParse(args);
  if (!parsed.success) {
    return { ok: false, notices, error: describeIssues(parsed.error, tool, Object.keys(raw)) };
  }
  return { ok: true, args: parsed.data as Record<string, unknown>, notices };
}
