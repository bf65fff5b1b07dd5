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

const previewLines = 200;
const previewChars = 16_000;

/**
 * The first lines of a tool output for a screen (`tool.completed.output_preview`): clients collapse
 * it to a few lines and show it whole on request; bounded so the event stays small.
 */
export function outputPreview(output: string): { output_preview: string; output_lines: number } {
  const lines = output.split("\n");
  let preview = lines.slice(0, previewLines).join("\n");
  if (preview.length > previewChars) preview = `${preview.slice(0, previewChars)}…`;
  return { output_preview: preview, output_lines: lines.length };
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
