import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { McpConfigSchema, McpServerNameSchema, type McpServerConfig, type McpTrustFile } from "@aide/contracts";
import { z } from "zod";
import { formatIssues } from "./format-issues.js";
import { workspaceConfigName } from "./mcp-paths.js";

export type WorkspaceServers = { kind: "none" } | { kind: "ignored"; file: string; reason: string } | { kind: "loaded"; file: string; digest: string; servers: Record<string, McpServerConfig> };

/** The common `{ "mcpServers": { name: { command, args, env } } }` form other agents use. */
const CommonFormSchema = z.object({
  mcpServers: z.record(McpServerNameSchema, z.object({ command: z.string().min(1), args: z.array(z.string()).default([]), env: z.record(z.string(), z.string()).default({}) }).loose()),
});

export function digestOf(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * A workspace's `.mcp.json`: loaded only when the person trusted this exact file (its sha256 is
 * recorded by `aide mcp trust DIR`). Even then a workspace cannot grant itself more than a plain
 * server: no network, no workspace writes, no secrets, no environment pass-through, no
 * auto-approval (those are the person's to give in `$AIDE_HOME/mcp.json`).
 */
export function workspaceServers(workspace: string, trust: McpTrustFile): WorkspaceServers {
  const dir = resolve(workspace);
  const file = join(dir, workspaceConfigName);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { kind: "none" };
  }
  const recorded = trust.trusted[dir];
  if (recorded === undefined) return { kind: "ignored", file, reason: `not trusted; review it and run aide mcp trust ${dir}` };
  if (recorded.sha256 !== digestOf(bytes)) return { kind: "ignored", file, reason: `changed since it was trusted (${recorded.trusted_at}); review it and run aide mcp trust ${dir} again` };
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    return { kind: "ignored", file, reason: `not valid JSON: ${(error as Error).message}` };
  }
  const common = CommonFormSchema.safeParse(raw);
  const input = common.success ? { servers: Object.fromEntries(Object.entries(common.data.mcpServers).map(([name, s]) => [name, { command: s.command, args: s.args, env: s.env }])) } : raw;
  const parsed = McpConfigSchema.safeParse(input);
  if (!parsed.success) return { kind: "ignored", file, reason: formatIssues(parsed.error) };
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(parsed.data.servers)) {
    servers[name] =
      server.type === "http" ? { ...server, allowRemote: false, auto_approve: [] } : { ...server, network: false, workspace_write: false, env_files: {}, env_passthrough: [], auto_approve: [] };
  }
  return { kind: "loaded", file, digest: recorded.sha256, servers };
}
