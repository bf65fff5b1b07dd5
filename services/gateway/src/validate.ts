import type { z } from "zod";
import { aideError } from "@aide/contracts";

/**
 * Parses a request part with its contract schema; a failure is a VALIDATION error naming the
 * fields. A part that is absent (a request with no body) is read as `{}`; a JSON `null` is a
 * value, and is checked as one.
 */
export function validate<S extends z.ZodTypeAny>(schema: S, value: unknown, part: "body" | "query" | "path"): z.infer<S> {
  // A number parameter given empty (`?offset=`) is no number: coercion would read "" as 0.
  if (part === "query" && value !== null && typeof value === "object") {
    const empty = Object.entries(value as Record<string, unknown>).find(([key, given]) => given === "" && isNumberField(schema, key));
    if (empty) throw aideError("VALIDATION", { detail: `query.${empty[0]}: empty, not a number (leave the parameter out instead)` });
  }
  const parsed = schema.safeParse(value === undefined ? {} : value);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .slice(0, 8)
    .map((issue) => `${part}${issue.path.length > 0 ? "." + issue.path.join(".") : ""}: ${issue.message}`)
    .join("; ");
  throw aideError("VALIDATION", { detail });
}

/** Whether an object schema's field is a number (through optional and default wrappers). */
function isNumberField(schema: z.ZodTypeAny, key: string): boolean {
  let field = (schema as unknown as { shape?: Record<string, unknown> }).shape?.[key] as { def?: { type?: string; innerType?: unknown } } | undefined;
  while (field?.def?.innerType) field = field.def.innerType as typeof field;
  return field?.def?.type === "number";
}
