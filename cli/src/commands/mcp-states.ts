import { existsSync, readFileSync } from "node:fs";
import { mcpHiddenCharactersWarning, McpServerStateSchema, renderUntrusted, type McpServerState } from "@aide/contracts";
import { mcpPaths } from "@aide/mcp/config";
import { z } from "zod";
import { aideHome } from "../supervisor/aide-home.js";

const StateFileSchema = z.object({ servers: z.array(McpServerStateSchema).default([]) }).loose();

/** Each MCP server's state and sandbox, as the running MCP service last wrote them; [] when there is none. */
export function mcpServerStates(env: NodeJS.ProcessEnv = process.env): McpServerState[] {
  const file = mcpPaths(aideHome(env).root).stateFile;
  if (!existsSync(file)) return [];
  try {
    return StateFileSchema.parse(JSON.parse(readFileSync(file, "utf8"))).servers;
  } catch {
    return [];
  }
}

/** Lines for `aide doctor` (a server's error text comes from the server: rendered as untrusted). */
export function mcpStateLines(states: McpServerState[]): string[] {
  return states.flatMap((state) => [
    `  ${state.name.padEnd(12)} ${state.state.padEnd(10)} ${state.origin}, ${state.tools} tools, ${state.restarts} restarts${state.pid ? `, pid ${state.pid}` : ""}`,
    ...(state.hidden_characters ? [`  ${"".padEnd(12)} ${mcpHiddenCharactersWarning(state.hidden_characters)}`] : []),
    `  ${"".padEnd(12)} ${state.sandbox}`,
    ...(state.last_error ? [`  ${"".padEnd(12)} last error: ${renderUntrusted(state.last_error).text}`] : []),
  ]);
}
