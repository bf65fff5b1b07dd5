import { join } from "node:path";

/** Where MCP configuration and state live under `$AIDE_HOME` (the person's, never a workspace's). */
export interface McpPaths {
  config: string;
  trust: string;
  secretsDir: string;
  stateDir: string;
  stateFile: string;
}

export function mcpPaths(aideHome: string): McpPaths {
  return {
    config: join(aideHome, "mcp.json"),
    // In a folder of its own: the service's sandbox binds the folder, so a trust given while it runs is seen
    // (a bound file would keep showing the replaced one).
    trust: join(aideHome, "mcp-trust", "trusted.json"),
    secretsDir: join(aideHome, "mcp-secrets"),
    stateDir: join(aideHome, "mcp-state"),
    stateFile: join(aideHome, "mcp-state", "servers.json"),
  };
}

/** The file in a workspace that declares servers for it (loaded only once trusted). */
export const workspaceConfigName = ".mcp.json";
