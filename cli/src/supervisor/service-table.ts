import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ServiceName } from "@aide/contracts";
import { toolchainHomes } from "@aide/runtime";
import { installRoot } from "./aide-home.js";

export interface StackSettings {
  aideHome: string;
  natsUrl: string;
  /** Per-user credentials files (JSON, 0600). */
  credentialFiles: Record<string, string>;
  /** The CA every service pins when connecting to the bus (AIDE_NATS_CA). */
  caFile?: string;
  gatewayPort: number;
  tokenFile: string;
  workspaceRoots: string[];
  modelsConfig?: string;
  defaultModel?: string;
  /** AIDE_MODEL_DISCOVERY for the model service (`off`, or `kind=port,...`). */
  modelDiscovery?: string;
  logLevel: string;
  unsafeNoSandbox: boolean;
  unsandboxedServices: boolean;
  allowHomeWorkspace?: boolean;
  /** The person's `instructions` config key (ask | trust | ignore): the orchestrator's AIDE_INSTRUCTIONS; the environment's wins. */
  instructions?: string;
  /** AIDE_ORCHESTRATOR_ID of this stack's orchestrator (orchestrator-id.ts); the environment's wins. */
  orchestratorId?: string;
  /** The `aide bus-config` directory of an external bus: hidden in every sandbox but the service's own files. */
  busDir?: string;
}

export interface ServiceDefinition {
  name: ServiceName;
  entry: string;
  args: string[];
  /** The whole environment of the process: an allow-list, never the supervisor's own env. */
  env: Record<string, string>;
}

/** Model-service settings taken from the supervisor's environment when set. */
const modelPassThrough = [
  "AIDE_MODEL_DISCOVERY",
  "AIDE_MODEL_DISCOVERY_TIMEOUT_MS",
  "AIDE_MODEL_MAX_CONTEXT",
  "AIDE_MODEL_PROBE_TRIALS",
  "AIDE_MODEL_THREADS",
  "AIDE_MODEL_MAX_LOADED",
  "AIDE_MODEL_GPU",
  "AIDE_MODEL_DELTA_MS",
  "AIDE_MODEL_PREFIX_CACHE",
  "AIDE_MODEL_MAX_CONCURRENT",
  "AIDE_MODEL_MAX_QUEUED",
  "AIDE_MODEL_MAX_QUEUED_PER_SESSION",
];

/** Settings of the shared runtime (runtime/src/service/shutdown-settings.ts, messages/chunked-transfer.ts) every service takes. */
const runtimePassThrough = ["AIDE_SHUTDOWN_GRACE_MS", "AIDE_BUS_MAX_MESSAGE_BYTES", "AIDE_BUS_COALESCE_WRITES"];

/** The tools service's command limits an operator may set in the environment of `aide up` (services/tools/README.md). */
const toolsLimitSettings = [
  "AIDE_TOOLS_MAX_PROCESSES",
  "AIDE_TOOLS_MAX_MEMORY_BYTES",
  "AIDE_TOOLS_MAX_FILE_BYTES",
  "AIDE_TOOLS_MAX_COMMANDS",
  "AIDE_TOOLS_MAX_QUEUED_COMMANDS",
  "AIDE_TOOLS_COMMAND_LIMITS",
  "AIDE_TOOLS_PREPARED_JAILS",
  "AIDE_TOOLS_SPAWN_HELPER",
  "AIDE_TOOLS_CALL_STORE_ENTRIES",
  "AIDE_TOOLS_DIAGNOSTICS",
  "AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS",
  "AIDE_TOOLS_DIAGNOSTICS_IDLE_MS",
  "AIDE_TOOLS_DIAGNOSTICS_WAIT_MS",
  "AIDE_TOOLS_PYRIGHT",
  "AIDE_TOOLS_PYRIGHT_COMMAND",
  // Admission and queues (services/tools/README.md, "Settings").
  "AIDE_TOOLS_MAX_CONCURRENT",
  "AIDE_TOOLS_MAX_QUEUED",
  "AIDE_TOOLS_MAX_QUEUED_PER_SESSION",
  "AIDE_TOOLS_QUEUE_WAIT_MS",
  "AIDE_TOOLS_MAX_QUEUED_COMMANDS_PER_SESSION",
];

/** The orchestrator's identity, lease, limits and timeouts (services/orchestrator/README.md, "Environment"). */
const orchestratorPassThrough = [
  "AIDE_ORCHESTRATOR_ID",
  "AIDE_LEASE_MS",
  "AIDE_APPROVAL_TIMEOUT_MS",
  "AIDE_MAX_ITERATIONS",
  "AIDE_RUN_BUDGET_MS",
  "AIDE_CONTEXT_CHARS",
  "AIDE_CODE_MAP_IN_PREFIX",
  "AIDE_INSTRUCTIONS",
  "AIDE_INSTRUCTIONS_BUDGET_TOKENS",
  "AIDE_MODEL_TIMEOUT_MS",
  "AIDE_TOOL_TIMEOUT_MS",
  "AIDE_CHECKPOINT_TIMEOUT_MS",
  "AIDE_MODEL_PROBE_TIMEOUT_MS",
  "AIDE_ORCHESTRATOR_MAX_IN_FLIGHT",
  "AIDE_ORCHESTRATOR_MAX_QUEUED",
  "AIDE_BUSY_WAIT_MS",
  "AIDE_HEARTBEAT_INTERVAL_MS",
  "AIDE_HEARTBEAT_TIMEOUT_MS",
  "AIDE_COMMAND_REPLY_MARGIN_MS",
];

/** The checkpoints service's own settings that `aide up` forwards: admission and the scan's lstat thread (services/checkpoints/README.md, "Configuration"). */
const checkpointsPassThrough = ["AIDE_CHECKPOINT_MAX_CONCURRENT", "AIDE_CHECKPOINT_MAX_QUEUED", "AIDE_CHECKPOINT_SCAN_STAT_THREAD"];

/** The gateway's request rate limit (services/gateway/README.md). */
const gatewayPassThrough = ["AIDE_GATEWAY_RATE_LIMIT"];

function passThrough(names: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (env[name] !== undefined ? [[name, env[name] as string]] : [])));
}

function toolsLimits(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(toolsLimitSettings.flatMap((name) => (env[name] !== undefined ? [[name, env[name] as string]] : [])));
}

/** The orchestrator's JetStream replicas/retention and store-outage settings (services/orchestrator/README.md). */
const orchestratorDurabilitySettings = [
  "AIDE_JETSTREAM_REPLICAS",
  "AIDE_JETSTREAM_STRICT",
  "AIDE_EVENTS_MAX_AGE_MS",
  "AIDE_EVENTS_MAX_BYTES",
  "AIDE_EVENTS_DUPLICATE_WINDOW_MS",
  "AIDE_SESSIONS_MAX_AGE_MS",
  "AIDE_SESSIONS_MAX_BYTES",
  "AIDE_STORE_PAUSE_AFTER_MS",
  "AIDE_DISK_FULL_RETRY_MS",
];
/** Cluster settings (docs/deployment.md, "Running on several machines") passed through when set in the environment of `aide up`. */
const clusterPassThrough: Record<ServiceName, string[]> = {
  orchestrator: ["AIDE_LEASE_MS", "AIDE_ORCHESTRATOR_ID"],
  checkpoints: ["AIDE_CHECKPOINT_LOCK_LEASE_MS"],
  gateway: ["AIDE_GATEWAY_HOST", "AIDE_GATEWAY_TLS_CERT", "AIDE_GATEWAY_TLS_KEY", "AIDE_GATEWAY_ALLOWED_HOSTS"],
  model: [],
  tools: [],
  mcp: [],
};

/** The variables `$AIDE_HOME/mcp.json` names in `env_passthrough` (read here: the service's env is an allow-list). */
function mcpPassThrough(aideHome: string, env: NodeJS.ProcessEnv): Record<string, string> {
  let names: string[] = [];
  try {
    const config = JSON.parse(readFileSync(join(aideHome, "mcp.json"), "utf8")) as { servers?: Record<string, { env_passthrough?: unknown }> };
    names = Object.values(config.servers ?? {}).flatMap((server) => (Array.isArray(server.env_passthrough) ? server.env_passthrough.filter((n): n is string => typeof n === "string") : []));
  } catch {
    // absent or invalid: the service reports an invalid file itself
  }
  const reserved = /^(AIDE_|PATH$|HOME$|LANG$)/;
  return Object.fromEntries(names.filter((name) => !reserved.test(name) && env[name] !== undefined).map((name) => [name, env[name] as string]));
}

const startOrder: ServiceName[] = ["model", "tools", "checkpoints", "mcp", "orchestrator", "gateway"];

/** What each service is started with. Each gets only its own credentials file and its own settings. */
export function serviceDefinitions(settings: StackSettings, env: NodeJS.ProcessEnv = process.env): ServiceDefinition[] {
  const common = (name: ServiceName): Record<string, string> => ({
    PATH: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: env.HOME ?? "/root",
    LANG: env.LANG ?? "C.UTF-8",
    AIDE_HOME: settings.aideHome,
    AIDE_NATS_URL: settings.natsUrl,
    AIDE_NATS_CREDS: settings.credentialFiles[name] ?? "",
    ...(settings.caFile ? { AIDE_NATS_CA: settings.caFile } : {}),
    AIDE_LOG_LEVEL: settings.logLevel,
    // Every service's shutdown grace and largest chunked message (docs/deployment.md, "Settings").
    ...Object.fromEntries(runtimePassThrough.flatMap((key) => (env[key] !== undefined ? [[key, env[key] as string]] : []))),
  });
  const roots = settings.workspaceRoots.join(":");
  const homeRule: Record<string, string> = settings.allowHomeWorkspace ? { AIDE_ALLOW_HOME_WORKSPACE: "1" } : {};
  const extra: Record<ServiceName, Record<string, string>> = {
    model: {
      ...(settings.modelsConfig ? { AIDE_MODELS_CONFIG: settings.modelsConfig } : {}),
      ...(settings.modelDiscovery !== undefined ? { AIDE_MODEL_DISCOVERY: settings.modelDiscovery } : {}),
      // The model service's own settings pass through when the operator set them (docs/deployment.md, "Settings").
      ...Object.fromEntries(modelPassThrough.flatMap((key) => (env[key] !== undefined ? [[key, env[key] as string]] : []))),
    },
    // The home-folder rule holds in every service that opens a workspace, not only at the start of a run.
    // RUSTUP_HOME, PYENV_ROOT: where the toolchains under the home live (its profile binds them back).
    tools: { AIDE_WORKSPACE_ROOTS: roots, ...homeRule, ...(settings.unsafeNoSandbox ? { AIDE_UNSAFE_NO_SANDBOX: "1" } : {}), ...toolsLimits(env), ...toolchainHomes(env).env },
    checkpoints: { AIDE_WORKSPACE_ROOTS: roots, ...homeRule, ...passThrough(checkpointsPassThrough, env) },
    orchestrator: {
      AIDE_WORKSPACE_ROOTS: roots,
      ...(settings.orchestratorId ? { AIDE_ORCHESTRATOR_ID: settings.orchestratorId } : {}),
      ...(settings.defaultModel ? { AIDE_DEFAULT_MODEL: settings.defaultModel } : {}),
      ...(settings.unsandboxedServices ? { AIDE_UNSANDBOXED_SERVICES: "1" } : {}),
      ...(settings.allowHomeWorkspace ? { AIDE_ALLOW_HOME_WORKSPACE: "1" } : {}),
      ...(settings.instructions ? { AIDE_INSTRUCTIONS: settings.instructions } : {}),
      ...Object.fromEntries(orchestratorDurabilitySettings.flatMap((key) => (env[key] !== undefined ? [[key, env[key] as string]] : []))),
      ...passThrough(orchestratorPassThrough, env),
    },
    gateway: { AIDE_GATEWAY_PORT: String(settings.gatewayPort), AIDE_GATEWAY_TOKEN_FILE: settings.tokenFile, ...passThrough(gatewayPassThrough, env) },
    // MCP servers get only the variables mcp.json lets through by name (env_passthrough), so the service sees them.
    mcp: { AIDE_WORKSPACE_ROOTS: roots, ...mcpPassThrough(settings.aideHome, env) },
  };
  return startOrder.map((name) => ({
    name,
    entry: join(installRoot, "services", name, "dist", "main.js"),
    args: [],
    env: { ...common(name), ...extra[name], ...Object.fromEntries(clusterPassThrough[name].flatMap((key) => (env[key] !== undefined ? [[key, env[key] as string]] : []))) },
  }));
}
