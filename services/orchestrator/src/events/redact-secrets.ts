import { mapEntries } from "@aide/contracts";
/**
 * Redaction of secret values in text that goes into events (tool.completed summaries and
 * metadata, on the stream and the WebSocket). The key stays visible so the person can tell what
 * was there; the value becomes `[redacted]`. This is for what events show, not what the model
 * gets: the model's copy is governed by the secret-read approval.
 */

/** Key names whose values are secret: `API_KEY`, `db_password`, `"token"`, `aws_secret_access_key`, `key`. */
const secretName =
  /(secret|token|passw(or)?d|passphrase|pwd|api[_.-]?key|access[_.-]?key|private[_.-]?key|auth(?!or)|credential|session[_.-]?id|cookie|dsn|connection[_.-]?string|database[_.-]?url|salt|signature|(^|[_.-])key$|^key$)/i;

/** `NAME=value`, `NAME: value`, `"name": "value"`, `export NAME=value` (one line; quotes kept around the redaction). */
const assignment = /(["']?)([A-Za-z_][\w.-]{0,80})\1([ \t]*[:=][ \t]*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,;}'"]+)/g;

/** Token shapes recognizable without a key name. */
const tokenShapes: Array<{ kind: string; pattern: RegExp }> = [
  { kind: "private-key", pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { kind: "openai", pattern: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/g },
  { kind: "stripe", pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: "github", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { kind: "gitlab", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "aws-access-key", pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g },
  { kind: "slack", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "google", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "npm", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "bearer", pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]{12,}=*/g },
];

/** `scheme://user:password@host`: the password goes. */
const urlCredentials = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)([^\s@/]+)(@)/gi;

const redactedMark = "[redacted]";

export function redactSecrets(text: string): string {
  let result = text;
  for (const { kind, pattern } of tokenShapes) {
    result = result.replace(pattern, (match: string, scheme?: string) => (kind === "bearer" && typeof scheme === "string" ? `${scheme} [redacted:${kind}]` : `[redacted:${kind}]`));
  }
  result = result.replace(urlCredentials, (_match, head: string, _password: string, at: string) => `${head}${redactedMark}${at}`);
  result = result.replace(assignment, (match: string, quote: string, name: string, separator: string, value: string) => {
    if (!secretName.test(name) || value.includes("[redacted")) return match;
    const bare = value.replace(/^["']|["']$/g, "");
    if (bare === "" || /^(true|false|null|none|undefined|\d{1,4})$/i.test(bare)) return match;
    const wrap = value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : "";
    return `${quote}${name}${quote}${separator}${wrap}${redactedMark}${wrap}`;
  });
  return result;
}

/** The same for every string inside a metadata object (shallow copies; non-strings kept). */
export function redactSecretsDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactSecretsDeep(item, depth + 1));
  return mapEntries(value, (key, item) => [key, redactSecretsDeep(item, depth + 1)]);
}
