import { resolve } from "node:path";
import type { Logger } from "pino";
import type { McpConfig, McpList, McpReloadResult, McpServerConfig, McpTrustFile } from "@aide/contracts";
import { readFileSync } from "node:fs";
import { digestOf, workspaceServers } from "../config/workspace-config.js";
import { isInside } from "@aide/runtime";
import { describeSandbox, launchServer, type LaunchSettings } from "./launch-server.js";
import { ServerConnection } from "./server-connection.js";

export interface ServerRegistryOptions {
  config: McpConfig;
  /** Read at each look-up: a trust given (or a file changed) takes effect without a restart. */
  trust(): McpTrustFile;
  settings: LaunchSettings;
  logger: Logger;
  /** Called after any server's state changed. Must not throw. */
  onChange(): void;
  backoff?: { initialMs: number; maxMs: number };
  /** How long a catalog request waits for a trusted workspace's servers to come up. */
  workspaceStartWaitMs?: number;
}

async function boundedWait(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * The person's servers (started with the service) and the servers of trusted workspace
 * `.mcp.json` files (started the first time that workspace's catalog is asked for).
 */
export class ServerRegistry {
  private readonly home = new Map<string, ServerConnection>();
  private readonly byWorkspace = new Map<string, { file: string; digest: string; servers: Map<string, ServerConnection> }>();
  private readonly ignored = new Map<string, { file: string; reason: string }>();

  /** The configuration each of the person's servers was started with (a reload compares against it). */
  private readonly homeConfigs = new Map<string, string>();

  constructor(private readonly options: ServerRegistryOptions) {
    for (const [name, config] of Object.entries(options.config.servers)) {
      this.home.set(name, this.connection(name, config, "home"));
      this.homeConfigs.set(name, JSON.stringify(config));
    }
  }

  /**
   * The person's mcp.json changed: servers that are gone or whose entry changed are stopped (a
   * changed one starts again with its new entry), new ones start, the rest keep running and keep
   * their calls. Resolves once the started ones came up or failed, or after `waitMs`.
   */
  async reload(config: McpConfig, source: string, waitMs = 20_000): Promise<McpReloadResult> {
    const result: McpReloadResult = { source, started: [], stopped: [], restarted: [], kept: [] };
    const wanted = new Map(Object.entries(config.servers).map(([name, entry]) => [name, JSON.stringify(entry)] as const));
    const stopping: Promise<void>[] = [];
    for (const [name, server] of this.home) {
      const next = wanted.get(name);
      if (next === this.homeConfigs.get(name)) {
        result.kept.push(name);
        continue;
      }
      this.home.delete(name);
      this.homeConfigs.delete(name);
      stopping.push(server.stop());
      (next === undefined ? result.stopped : result.restarted).push(name);
    }
    await Promise.all(stopping);
    const starting: Promise<unknown>[] = [];
    for (const [name, entry] of Object.entries(config.servers)) {
      if (this.home.has(name)) continue;
      const server = this.connection(name, entry, "home");
      this.home.set(name, server);
      this.homeConfigs.set(name, JSON.stringify(entry));
      if (!result.restarted.includes(name)) result.started.push(name);
      starting.push(server.start());
    }
    this.options.onChange();
    await boundedWait(Promise.all(starting), waitMs);
    this.options.onChange();
    return result;
  }

  private connection(name: string, config: McpServerConfig, origin: "home" | "workspace", workspace?: string): ServerConnection {
    const settings = workspace ? { ...this.options.settings, workspaceRoots: [workspace], hideRoots: this.options.settings.workspaceRoots } : this.options.settings;
    return new ServerConnection({
      name,
      config,
      origin,
      ...(workspace ? { workspace } : {}),
      sandbox: describeSandbox(config, settings),
      launch: () => launchServer(name, config, settings),
      logger: this.options.logger,
      onChange: this.options.onChange,
      ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
    });
  }

  /**
   * Starts every configured server; resolves once each has come up or failed (failures retry on
   * their own), or after `waitMs`: one slow server must not hold the service (and `aide up`) back.
   */
  async start(waitMs = 20_000): Promise<void> {
    await boundedWait(Promise.all([...this.home.values()].map((server) => server.start())), waitMs);
  }

  /** The workspace's trusted servers, started on first use; an untrusted or changed file is recorded as ignored. */
  private async workspaceConnections(workspace: string | undefined): Promise<ServerConnection[]> {
    if (workspace === undefined) return [];
    const dir = resolve(workspace);
    const roots = this.options.settings.workspaceRoots;
    if (roots.length > 0 && !roots.some((root) => isInside(dir, root))) return [];
    const existing = this.byWorkspace.get(dir);
    if (existing) {
      if (fileDigest(existing.file) === existing.digest) return [...existing.servers.values()];
      // Changed since it was trusted and loaded: its servers stop until the person trusts it again.
      this.byWorkspace.delete(dir);
      await Promise.all([...existing.servers.values()].map((server) => server.stop()));
    }
    this.ignored.delete(dir);
    const found = workspaceServers(dir, this.options.trust());
    if (found.kind === "none") return [];
    if (found.kind === "ignored") {
      this.ignored.set(dir, { file: found.file, reason: found.reason });
      this.options.onChange();
      return [];
    }
    const connections = new Map<string, ServerConnection>();
    for (const [name, config] of Object.entries(found.servers)) {
      if (this.home.has(name)) {
        this.ignored.set(`${dir}#${name}`, { file: found.file, reason: `server ${name} is also in $AIDE_HOME/mcp.json, which wins` });
        continue;
      }
      connections.set(name, this.connection(name, config, "workspace", dir));
    }
    this.byWorkspace.set(dir, { file: found.file, digest: found.digest, servers: connections });
    // A run's start waits for these (its catalog), but not for a server that hangs at start.
    await boundedWait(Promise.all([...connections.values()].map((server) => server.start())), this.options.workspaceStartWaitMs ?? 10_000);
    return [...connections.values()];
  }

  async list(workspace: string | undefined): Promise<McpList> {
    const servers = [...this.home.values(), ...(await this.workspaceConnections(workspace))];
    const ignored = workspace === undefined ? [] : [...this.ignored.entries()].filter(([key]) => key === resolve(workspace) || key.startsWith(`${resolve(workspace)}#`)).map(([, value]) => value);
    return {
      tools: servers.flatMap((server) => [...server.tools.values()].map((entry) => entry.descriptor)),
      refused: servers.flatMap((server) => server.refused),
      servers: servers.map((server) => server.describe()),
      ignored,
    };
  }

  /** The server a call names: the person's, or the call's workspace's trusted one. */
  async find(name: string, workspace: string | undefined): Promise<ServerConnection | undefined> {
    return this.home.get(name) ?? (await this.workspaceConnections(workspace)).find((server) => server.name === name);
  }

  /** Everything `aide doctor` and `aide mcp list` read from the state file. */
  snapshot(): Pick<McpList, "servers" | "refused" | "ignored"> {
    const all = [...this.home.values(), ...[...this.byWorkspace.values()].flatMap((entry) => [...entry.servers.values()])];
    return { servers: all.map((server) => server.describe()), refused: all.flatMap((server) => server.refused), ignored: [...this.ignored.values()] };
  }

  async stop(): Promise<void> {
    const all = [...this.home.values(), ...[...this.byWorkspace.values()].flatMap((entry) => [...entry.servers.values()])];
    await Promise.all(all.map((server) => server.stop()));
  }
}

function fileDigest(file: string): string | undefined {
  try {
    return digestOf(readFileSync(file));
  } catch {
    return undefined;
  }
}
