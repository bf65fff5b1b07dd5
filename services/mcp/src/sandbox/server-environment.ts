import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { aideError, type McpStdioServerConfig } from "@aide/contracts";

/**
 * The whole environment of a server: a fixed base, the literal values of its config, the
 * variables the person let through by name, and secrets read from 0600 files under
 * `$AIDE_HOME/mcp-secrets`. Never the service's own (no bus credentials).
 */
export function serverEnvironment(name: string, server: McpStdioServerConfig, serviceEnv: NodeJS.ProcessEnv, secretsDir: string): Record<string, string> {
  const path =
    (serviceEnv.PATH ?? "")
      .split(":")
      .filter((entry) => entry.startsWith("/"))
      .join(":") || "/usr/local/bin:/usr/bin:/bin";
  const env: Record<string, string> = { PATH: path, HOME: "/tmp/home", TMPDIR: "/tmp", LANG: "C.UTF-8", NO_COLOR: "1" };
  for (const key of server.env_passthrough) {
    const value = serviceEnv[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, server.env);
  for (const [key, file] of Object.entries(server.env_files)) {
    const full = join(secretsDir, file);
    let mode: number;
    try {
      mode = statSync(full).mode & 0o777;
    } catch (error) {
      throw aideError("CONFIG_INVALID", { detail: `servers.${name}.env_files.${key}: cannot read ${full}: ${(error as Error).message}` });
    }
    if ((mode & 0o077) !== 0) throw aideError("CONFIG_INVALID", { detail: `servers.${name}.env_files.${key}: ${full} must be readable by its owner only (chmod 600; it is ${mode.toString(8)})` });
    env[key] = readFileSync(full, "utf8").replace(/\r?\n$/, "");
  }
  return env;
}
