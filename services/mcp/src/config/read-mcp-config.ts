import { readFileSync } from "node:fs";
import { aideError, McpConfigSchema, McpTrustFileSchema, type McpConfig, type McpTrustFile } from "@aide/contracts";
import { formatIssues } from "./format-issues.js";

function readJson(file: string): unknown | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw aideError("CONFIG_INVALID", { detail: `cannot read ${file}: ${(error as Error).message}` });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw aideError("CONFIG_INVALID", { detail: `${file} is not valid JSON: ${(error as Error).message}` });
  }
}

/** `$AIDE_HOME/mcp.json`, validated; absent means no servers. Throws CONFIG_INVALID naming the field. */
export function readMcpConfig(file: string): McpConfig {
  const raw = readJson(file);
  if (raw === undefined) return McpConfigSchema.parse({});
  const parsed = McpConfigSchema.safeParse(raw);
  if (!parsed.success) throw aideError("CONFIG_INVALID", { detail: `${file}: ${formatIssues(parsed.error)}` });
  return parsed.data;
}

export function readTrustFile(file: string): McpTrustFile {
  const raw = readJson(file);
  if (raw === undefined) return { trusted: {} };
  const parsed = McpTrustFileSchema.safeParse(raw);
  if (!parsed.success) throw aideError("CONFIG_INVALID", { detail: `${file}: ${formatIssues(parsed.error)}` });
  return parsed.data;
}
