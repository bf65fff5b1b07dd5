import { createHash } from "node:crypto";

/** Arguments whose values are bodies (file content, patches, SEARCH/REPLACE blocks): never in events. */
const bodyKeys = new Set(["content", "diff", "patch", "replace", "search", "blocks", "text", "body", "input", "stdin"]);
const maxPublicValue = 2_000;

export function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The public form of a call's arguments: bodies become `{ bytes, sha256 }`, long values are cut
 * with a marker, and secrets-looking keys are redacted. The full arguments stay in the durable
 * session record only.
 */
export function sanitizeArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
    if (bodyKeys.has(key.toLowerCase())) {
      out[key] = { bytes: Buffer.byteLength(text), sha256: digestOf(text) };
    } else if (/pass(word)?|secret|token|api[_-]?key|credential/i.test(key)) {
      out[key] = "[redacted]";
    } else if (text.length > maxPublicValue) {
      out[key] = `${text.slice(0, maxPublicValue)}… [${text.length - maxPublicValue} more characters]`;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * A short one-line summary of a tool output for `tool.completed` (the full output goes to the
 * model only). Only ASCII whitespace is flattened: a line separator, BOM or other invisible
 * character stays, for the event sink to show as a token.
 */
export function summarizeOutput(output: string, limit = 300): string {
  // Not `trim()`: it would drop a leading or trailing BOM or line separator unseen.
  const flat = output.replace(/[ \t\n\r\f\v]+/g, " ").replace(/^ | $/g, "");
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}
