import type { z } from "zod";
import { aideError } from "@aide/contracts";

/**
 * Parses a request part with its contract schema; a failure is a VALIDATION error naming the
 * fields. A part that is absent (a request with no body) is read as `{}`; a JSON `null` is a
 * value, and is checked as one.
 */
export function validate<S extends z.ZodTypeAny>(schema: S, value: unknown, part: "body" | "query" | "path"): z.infer<S> {
  // A query parameter given empty (`?offset=`) is no value: every one the API takes is a non-empty
  // string or a number (a number's coercion would read "" as 0).
  if (part === "query" && value !== null && typeof value === "object") {
    const empty = Object.entries(value as Record<string, unknown>).find(([, given]) => given === "");
    if (empty) throw aideError("VALIDATION", { detail: `query.${empty[0]}: empty (leave the parameter out instead)` });
  }
  const parsed = schema.safeParse(value === undefined ? {} : value);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .slice(0, 8)
    .map((issue) => `${part}${issue.path.length > 0 ? "." + issue.path.join(".") : ""}: ${issue.message}`)
    .join("; ");
  throw aideError("VALIDATION", { detail });
}
