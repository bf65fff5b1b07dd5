import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { aideError, type McpServerConfig } from "@aide/contracts";
import { serverEnvironment } from "../sandbox/server-environment.js";
import { nodePrefix, serverSandboxArguments, type ServerCgroups } from "@aide/runtime";
import { SandboxedStdioTransport } from "./sandboxed-stdio-transport.js";
import type { LaunchedServer } from "./server-connection.js";

export interface LaunchSettings {
  workspaceRoots: string[];
  home: string;
  aideHome: string;
  installRoot: string;
  secretsDir: string;
  serviceEnv: NodeJS.ProcessEnv;
  cgroups: ServerCgroups;
  /** Roots hidden from this server (a workspace server: the service's other roots). */
  hideRoots?: string[];
}

function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** What the sandbox of a server allows, in one line (aide doctor, aide mcp list). */
export function describeSandbox(config: McpServerConfig, settings: Pick<LaunchSettings, "cgroups">): string {
  if (config.type === "http") return `http (no process here; ${config.allowRemote ? "remote allowed" : "loopback only"})`;
  const limits = settings.cgroups.describe({ maxProcesses: config.max_processes, maxMemoryBytes: config.max_memory_bytes });
  return `bubblewrap: network ${config.network ? "allowed (consented)" : "none"}, workspace ${config.workspace_write ? "read-write (.aide, .git read-only)" : "read-only"}, private /tmp, home hidden, cgroups ${limits}`;
}

/** Starts one server: a stdio server inside its own bubblewrap (in its own cgroups), or an HTTP session. */
export async function launchServer(name: string, config: McpServerConfig, settings: LaunchSettings): Promise<LaunchedServer> {
  if (config.type === "http") {
    const url = new URL(config.url);
    if (!isLoopback(url) && !config.allowRemote) throw aideError("REMOTE_NOT_ALLOWED", { url: config.url });
    return { transport: new StreamableHTTPClientTransport(url), release: async () => undefined };
  }
  const env = serverEnvironment(name, config, settings.serviceEnv, settings.secretsDir);
  const args = serverSandboxArguments({
    server: config,
    workspaceRoots: settings.workspaceRoots,
    hide: [settings.home, settings.aideHome],
    ...(settings.hideRoots ? { hideRoots: settings.hideRoots } : {}),
    keepVisible: [settings.installRoot, nodePrefix()],
    env,
  });
  const cgroup = await settings.cgroups.create(name, { maxProcesses: config.max_processes, maxMemoryBytes: config.max_memory_bytes });
  const launch =
    cgroup === null
      ? { file: "bwrap", args, env: { PATH: env.PATH ?? "/usr/bin:/bin" } }
      : { file: "/bin/sh", args: ["-c", `${cgroup.procsFiles.map((f) => `echo $$ > '${f}'`).join(" && ")} && exec "$@"`, "sh", "bwrap", ...args], env: { PATH: env.PATH ?? "/usr/bin:/bin" } };
  // The SDK client starts the transport (spawns the sandbox) when it connects.
  const transport = new SandboxedStdioTransport(launch);
  return { transport, release: async () => cgroup?.release() };
}
