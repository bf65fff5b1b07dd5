import { z } from "zod";

/**
 * Argument schemas that accept the string forms the XML text protocol delivers ("10", "true")
 * while the JSON Schema shown to the model stays typed (z.toJSONSchema renders the output side).
 */
function toNumber(value: unknown): unknown {
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value.trim()))) return Number(value.trim());
  return value;
}

function toBoolean(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim().toLowerCase();
  if (["true", "yes", "1", "on"].includes(text)) return true;
  if (["false", "no", "0", "off", ""].includes(text)) return false;
  return value;
}

export function integerArg(options: { min?: number; max?: number } = {}) {
  let inner = z.number().int();
  if (options.min !== undefined) inner = inner.min(options.min);
  if (options.max !== undefined) inner = inner.max(options.max);
  return z.preprocess(toNumber, inner);
}

export function booleanArg() {
  return z.preprocess(toBoolean, z.boolean());
}

/**
 * The longest path argument: a path relative to the workspace needs far less (the
 * longest in the eval's projects is under 60), and the local models' grammar reads this bound
 * from the schema, so two one-line values cannot eat a 512-token reply (SmolLM2 wrote 255
 * characters of `2024/2024/…` twice). The model service's grammar and this validator are one rule.
 */
export const PATH_MAX_CHARS = 160;
/** The longest search pattern or glob: a regular expression that finds a place, not a paragraph. */
export const PATTERN_MAX_CHARS = 120;

/** A path argument: a non-empty string (the jail decides what it means). */
export function pathArg() {
  return z.string().min(1, "must not be empty").max(PATH_MAX_CHARS, `must be at most ${PATH_MAX_CHARS} characters: give the path relative to the workspace`);
}
