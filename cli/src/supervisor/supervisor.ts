import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { aideError, type ServiceName } from "@aide/contracts";
import {
  checkSandboxSupport,
  connectBus,
  delegateCgroups,
  freePort,
  readCredentialsFile,
  startNatsServer,
  waitForService,
  type CgroupDelegation,
  type Logger,
  type RunningNatsServer,
} from "@aide/runtime";
import { ensureAideHome, type AideHome } from "./aide-home.js";
import { ManagedProcess, plainLauncher } from "./managed-process.js";
import { sandboxLauncher } from "./sandbox-launcher.js";
import { serviceDefinitions, type StackSettings } from "./service-table.js";
import { stackOrchestratorId } from "./orchestrator-id.js";
import { RegistryReloader } from "./registry-reloader.js";
import { watchMcpConfig } from "./mcp-config-reloader.js";
import { pathsNamedIn } from "./sandbox-launcher.js";
import { reapOrphanedStack, readStackFile, removeStackFile, writeStackFile } from "./stack-file.js";
import { acquireHomeLock, releaseHomeLock } from "./home-lock.js";
import { describePortOwner, findPortOwner, portFree } from "./port-owner.js";

export interface SupervisorOptions {
  home: AideHome;
  natsPort: number;
  /** 0: pick a free port. */
  gatewayPort: number;
  workspaceRoots: string[];
  modelsConfig?: string;
  defaultModel?: string;
  /** AIDE_MODEL_DISCOVERY for the model service. */
  modelDiscovery?: string;
  logLevel?: string;
  unsafeNoSandbox?: boolean;
  unsandboxedServices?: boolean;
  /** aide up --allow-home-workspace: the orchestrator's AIDE_ALLOW_HOME_WORKSPACE. */
  allowHomeWorkspace?: boolean;
  /** The person's `instructions` config key ($AIDE_HOME/run.json): the orchestrator's AIDE_INSTRUCTIONS. */
  instructions?: "ask" | "trust" | "ignore";
  /**
   * Use an existing NATS deployment: its URL, a directory with `<service>.json` credentials, and
   * optionally the CA its TLS certificate chains to (AIDE_NATS_CA; without it, no TLS check).
   */
  external?: { url: string; credentialsDir: string; caFile?: string; busDir?: string };
  /** Run only these services (`aide up --services`, with `external`); default all five. */
  services?: ServiceName[];
  logger: Logger;
  readyTimeoutMs?: number;
}

export interface StackInfo {
  natsUrl: string;
  /** The CA the bus's certificate chains to (absent: an external NATS without TLS). */
  caFile?: string;
  /** Empty when this supervisor runs no gateway (`--services` without it). */
  gatewayUrl: string;
  tokenFile: string;
  credentialFiles: Record<string, string>;
  services: Record<string, number | undefined>;
}

export const serviceStartOrder = ["model", "tools", "checkpoints", "mcp", "orchestrator", "gateway"] as const;

export class Supervisor {
  private nats: RunningNatsServer | undefined;
  /** nats-server while it starts: a stop() meanwhile waits for it, so it is stopped too, not orphaned. */
  private natsStarting: Promise<RunningNatsServer | undefined> | undefined;
  private processes: ManagedProcess[] = [];
  private pinger: NatsConnection | undefined;
  private info: StackInfo | undefined;
  private cgroups: CgroupDelegation[] = [];
  private reloader: RegistryReloader | undefined;
  private stopMcpWatch: (() => void) | undefined;
  private readonly logger: Logger;
  /** Set once this supervisor holds the home's lock: only then may it write or remove stack.json. */
  private ownsHome = false;
  /** Set by stop(): a start still under way gives up at its next step. */
  private stopped = false;

  constructor(private readonly options: SupervisorOptions) {
    this.logger = options.logger.child({ module: "supervisor" });
  }

  async start(): Promise<StackInfo> {
    const { home } = this.options;
    ensureAideHome(home);
    this.claimHome();
    const reaped = reapOrphanedStack(home.stackFile, join(home.runDir, "nats-server.conf"));
    if (reaped) {
      this.logger.warn(reaped);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await this.checkPorts();
    const unsandboxed = this.options.unsandboxedServices ?? false;
    if (!unsandboxed) {
      const support = checkSandboxSupport();
      if (!support.available) {
        throw aideError("SANDBOX_UNAVAILABLE", {
          detail: `${support.detail}. The services cannot get their own sandboxes; pass --unsandboxed-services to run them without (shown in aide doctor and in every run.created event)`,
        });
      }
    } else {
      this.logger.warn("services run WITHOUT their own sandboxes (--unsandboxed-services)");
    }

    let natsUrl: string;
    let credentialFiles: Record<string, string>;
    let caFile: string | undefined;
    if (this.options.external) {
      natsUrl = this.options.external.url;
      caFile = this.options.external.caFile;
      credentialFiles = Object.fromEntries(
        ["orchestrator", "model", "tools", "checkpoints", "gateway", "mcp", "observer", "supervisor"].map((user) => [user, join(this.options.external!.credentialsDir, `${user}.json`)]),
      );
    } else {
      // TLS with a fresh per-stack CA: services pin it, so none can join a foreign server on the port.
      const starting = startNatsServer({ runDir: home.runDir, port: this.options.natsPort, tls: true });
      this.natsStarting = starting.catch(() => undefined);
      this.nats = await starting.catch((error: Error) => {
        throw new Error(`${error.message}${this.options.natsPort ? ` (is port ${this.options.natsPort} in use? pass --nats-port)` : ""}`);
      });
      natsUrl = this.nats.url;
      credentialFiles = this.nats.credentialFiles;
      caFile = this.nats.caFile;
      this.logger.info({ url: natsUrl, config: this.nats.configPath }, "nats-server started");
    }

    this.throwIfStopped();
    const tokenFile = home.tokenFile;
    const withGateway = this.runs("gateway");
    if (withGateway) {
      writeFileSync(tokenFile, randomBytes(32).toString("base64url") + "\n", { mode: 0o600 });
      chmodSync(tokenFile, 0o600);
    }
    const gatewayPort = !withGateway ? 0 : this.options.gatewayPort > 0 ? this.options.gatewayPort : await freePort();

    const settings: StackSettings = {
      aideHome: home.root,
      natsUrl,
      credentialFiles,
      ...(caFile ? { caFile } : {}),
      gatewayPort,
      tokenFile,
      workspaceRoots: this.options.workspaceRoots,
      modelsConfig: this.options.modelsConfig,
      defaultModel: this.options.defaultModel,
      ...(this.options.modelDiscovery !== undefined ? { modelDiscovery: this.options.modelDiscovery } : {}),
      logLevel: this.options.logLevel ?? "info",
      unsafeNoSandbox: this.options.unsafeNoSandbox ?? false,
      unsandboxedServices: unsandboxed,
      allowHomeWorkspace: this.options.allowHomeWorkspace ?? false,
      ...(this.options.instructions !== undefined ? { instructions: this.options.instructions } : {}),
      ...(this.options.external?.busDir ? { busDir: this.options.external.busDir } : {}),
      ...(this.runs("orchestrator") ? { orchestratorId: stackOrchestratorId(home.runDir) } : {}),
    };
    const toolsCgroups = unsandboxed || !this.runs("tools") ? undefined : delegateCgroups("tools");
    if (toolsCgroups) this.cgroups.push(toolsCgroups);
    const mcpCgroups = unsandboxed ? undefined : delegateCgroups("mcp");
    if (mcpCgroups) this.cgroups.push(mcpCgroups);
    for (const [service, delegation] of [
      ["tools", toolsCgroups],
      ["mcp", mcpCgroups],
    ] as const) {
      if (delegation?.hierarchy === "none") {
        this.logger.warn(
          { code: "SANDBOX_LIMITS_UNAVAILABLE", service, reason: delegation.reason },
          `per-command memory and process limits are OFF for ${service}: no cgroup could be delegated to it`,
        );
      } else if (delegation) {
        this.logger.info({ service, hierarchy: delegation.hierarchy, directories: delegation.directories, ...(delegation.reason ? { reason: delegation.reason } : {}) }, "cgroups delegated");
      }
    }
    const launcher = unsandboxed ? plainLauncher : sandboxLauncher(settings, process.env.HOME ?? "/root", { tools: toolsCgroups, mcp: mcpCgroups });
    for (const definition of serviceDefinitions(settings).filter((each) => this.runs(each.name))) {
      if (!existsSync(definition.entry)) {
        throw aideError("INTERNAL", { detail: `${definition.entry} is missing: run 'npm run build' first` });
      }
      const managed = new ManagedProcess({
        definition,
        launcher,
        logFile: join(home.logDir, `${definition.name}.log`),
        logger: this.logger,
        onStart: () => this.writeStack(),
      });
      this.processes.push(managed);
    }

    this.pinger = await connectBus({
      config: { url: natsUrl, credentials: readCredentialsFile(credentialFiles.supervisor), ...(caFile ? { caFile } : {}) },
      name: "aide-supervisor",
      logger: this.logger.child({ module: "bus" }),
    });
    this.info = {
      natsUrl,
      ...(caFile ? { caFile } : {}),
      gatewayUrl: withGateway ? `http://127.0.0.1:${gatewayPort}` : "",
      tokenFile,
      credentialFiles,
      services: {},
    };
    this.throwIfStopped();
    for (const managed of this.processes) managed.start();
    await Promise.all(this.processes.map((managed) => this.waitForPing(managed.name)));
    this.writeStack();
    this.watchRegistry(settings.modelsConfig ?? join(home.root, "models.json"), unsandboxed);
    // mcp.json changes reach the running MCP service (agent.mcp.reload), as models.json's reach the model service.
    if (this.processes.some((managed) => managed.name === "mcp") && this.pinger) {
      this.stopMcpWatch = watchMcpConfig({ configFile: join(home.root, "mcp.json"), connection: this.pinger, logger: this.logger.child({ module: "mcp-config" }) });
    }
    return this.info;
  }

  /**
   * Refuses to start on a home whose stack runs (stack.json or the lock names a live supervisor),
   * before anything of that stack (stack.json, gateway.token, credentials) is touched.
   */
  private claimHome(): void {
    const { home } = this.options;
    const refuse = (pid: number, gateway: string) => aideError("STACK_RUNNING", { home: home.root, pid, gateway });
    const running = readStackFile(home.stackFile);
    if (running) throw refuse(running.pid, running.gateway_url);
    const holder = acquireHomeLock(join(home.runDir, "supervisor.lock"));
    if (holder !== undefined) throw refuse(holder, readStackFile(home.stackFile)?.gateway_url ?? "(still starting)");
    this.ownsHome = true;
  }

  /** A port held by anything else is reported now, by port and owner, not after a 60 s wait. */
  private async checkPorts(): Promise<void> {
    const wanted: Array<{ port: number; role: string; flag: string }> = [];
    if (!this.options.external && this.options.natsPort > 0) wanted.push({ port: this.options.natsPort, role: "NATS", flag: "--nats-port" });
    if (this.runs("gateway") && this.options.gatewayPort > 0) wanted.push({ port: this.options.gatewayPort, role: "gateway", flag: "--gateway-port" });
    for (const { port, role, flag } of wanted) {
      if (await portFree(port)) continue;
      throw aideError("PORT_IN_USE", { port, role, flag, owner: describePortOwner(findPortOwner(port)) });
    }
  }

  /** Whether this supervisor runs that service (all of them unless `services` names a subset). */
  private runs(name: ServiceName): boolean {
    return this.options.services === undefined || this.options.services.includes(name);
  }

  private throwIfStopped(): void {
    if (this.stopped) throw aideError("ABORTED");
  }

  /** models.json changes reach the running model service (agent.model.reload) without a stack restart. */
  private watchRegistry(configFile: string, unsandboxed: boolean): void {
    const model = this.processes.find((managed) => managed.name === "model");
    if (!model || !this.pinger) return;
    let visible = unsandboxed ? undefined : pathsNamedIn(configFile);
    this.reloader = new RegistryReloader({
      configFile,
      connection: this.pinger,
      logger: this.logger.child({ module: "registry" }),
      // Unsandboxed, the service sees every file; sandboxed, what was bound at its last start.
      visiblePaths: () => visible ?? pathsNamedIn(configFile),
      restartModel: async () => {
        await model.restart();
        visible = unsandboxed ? undefined : pathsNamedIn(configFile);
        await this.waitForPing("model");
        this.writeStack();
      },
    });
    this.reloader.start();
  }

  /** Resolves when `$SRV.PING.aide-<name>` is answered. */
  async waitForPing(name: string, timeoutMs = this.options.readyTimeoutMs ?? 60_000): Promise<void> {
    await waitForService(this.pinger!, name, { timeoutMs }).catch((error: Error) => {
      throw aideError("UNAVAILABLE", { service: name, detail: `${error.message}; see ${join(this.options.home.logDir, name + ".log")}` });
    });
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.processes.map((managed) => [managed.name, managed.pid]));
  }

  private writeStack(): void {
    // Without a gateway there is nothing for clients here; the home lock still keeps a second start out.
    if (!this.info || !this.ownsHome || this.stopped || !this.info.gatewayUrl) return;
    writeStackFile(this.options.home.stackFile, {
      gateway_url: this.info.gatewayUrl,
      token_file: this.info.tokenFile,
      nats_url: this.info.natsUrl,
      ...(this.info.caFile ? { nats_ca: this.info.caFile } : {}),
      observer_credentials: this.info.credentialFiles.observer,
      pid: process.pid,
      nats_pid: this.nats?.process.pid,
      started_at: new Date().toISOString(),
      unsandboxed_services: this.options.unsandboxedServices ?? false,
      services: Object.fromEntries(this.processes.map((m) => [m.name, { pid: m.pid ?? null, launcher_pid: m.launcherPid ?? null, restarts: m.restarts }])),
    });
  }

  /** Stops the services (gateway first, so no new work arrives), then nats-server. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.reloader?.stop();
    this.stopMcpWatch?.();
    for (const managed of [...this.processes].reverse()) await managed.stop();
    await this.pinger?.close().catch(() => undefined);
    // A stop during nats-server's start waits for that start (it ends with the server ready or failed).
    const nats = this.nats ?? (await this.natsStarting);
    await nats?.stop();
    for (const delegation of this.cgroups) delegation.release();
    // A supervisor refused for a running stack owns nothing of it: that stack's files stay.
    if (this.ownsHome) {
      removeStackFile(this.options.home.stackFile);
      releaseHomeLock(join(this.options.home.runDir, "supervisor.lock"));
      this.ownsHome = false;
    }
    this.logger.info("stack stopped");
  }
}
