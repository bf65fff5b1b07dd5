import { existsSync, readFileSync } from "node:fs";
import { createGatewayClient } from "../client/gateway-client.js";
import { join } from "node:path";
import { createLogger } from "@aide/runtime";
import { aideHome } from "../supervisor/aide-home.js";
import { Supervisor, type StackInfo } from "../supervisor/supervisor.js";
import type { UpOptions } from "../supervisor/up-options.js";
import { openLogDestination } from "../supervisor/log-destination.js";
import { checkRegistryFile } from "./models-file.js";
import { loadRunPolicyFile } from "../client/run-policy.js";

/** Builds the supervisor for `aide up` / `aide demo` from parsed options and the environment. */
export function createSupervisor(options: UpOptions, env: NodeJS.ProcessEnv = process.env) {
  const home = aideHome(env);
  const logger = createLogger("supervisor", { level: options.logLevel, destination: openLogDestination(join(home.logDir, "supervisor.log")) });
  const modelsConfig = options.modelsConfig ?? (existsSync(join(home.root, "models.json")) ? join(home.root, "models.json") : undefined);
  const external =
    options.external ??
    (env.AIDE_NATS_URL
      ? { url: env.AIDE_NATS_URL, credentialsDir: env.AIDE_NATS_CREDS_DIR ?? join(home.runDir, "credentials"), ...(env.AIDE_NATS_CA ? { caFile: env.AIDE_NATS_CA } : {}) }
      : undefined);
  const supervisor = new Supervisor({
    home,
    natsPort: options.natsPort,
    gatewayPort: options.gatewayPort,
    // Part of a stack without tools/checkpoints (an orchestrator host): any workspace the others serve.
    workspaceRoots: options.workspaces.length > 0 ? options.workspaces : options.services ? [] : [process.cwd()],
    modelsConfig,
    defaultModel: options.model,
    modelDiscovery: options.modelDiscovery ?? env.AIDE_MODEL_DISCOVERY,
    logLevel: options.logLevel,
    unsafeNoSandbox: options.unsafeNoSandbox,
    unsandboxedServices: options.unsandboxedServices,
    allowHomeWorkspace: options.allowHomeWorkspace,
    ...instructionsSetting(home.root),
    external,
    ...(options.services ? { services: options.services } : {}),
    logger,
  });
  return { supervisor, home, logger };
}

/**
 * The person's `instructions` key of `$AIDE_HOME/run.json` for the stack's orchestrator; an invalid
 * file is left to `aide run`, which names the field (AIDE_INSTRUCTIONS in the environment wins).
 */
export function instructionsSetting(home: string): { instructions?: "ask" | "trust" | "ignore" } {
  try {
    const instructions = loadRunPolicyFile(undefined, home).instructions;
    return instructions === undefined ? {} : { instructions };
  } catch {
    return {};
  }
}

/** A one-time login link to the panel (`aide open`), or how to get one when the gateway did not give it. */
export async function panelLinkLine(info: StackInfo): Promise<string> {
  try {
    const client = createGatewayClient({ baseUrl: info.gatewayUrl, token: readFileSync(info.tokenFile, "utf8").trim() });
    const link = await client.panelLink();
    return `${info.gatewayUrl}${link.path}   (works once, for a minute; aide open prints a fresh one)`;
  } catch {
    return "run aide open for a one-time login link";
  }
}

export function describeStack(info: StackInfo, home: { logDir: string }, panelLink: string): string {
  if (!info.gatewayUrl) {
    return [
      `aide is up (part of a stack: ${Object.keys(info.services).join(", ")}).`,
      `  bus       ${info.natsUrl}`,
      `  logs      ${home.logDir}/<service>.log`,
      `  services  ${Object.entries(info.services)
        .map(([name, pid]) => `${name}:${pid ?? "?"}`)
        .join("  ")}`,
    ].join("\n");
  }
  return [
    `aide is up.`,
    `  gateway   ${info.gatewayUrl}   (token: ${info.tokenFile})`,
    `  web panel ${panelLink}`,
    `  bus       ${info.natsUrl}`,
    `  watch it  aide events`,
    `            nats sub 'agent.>' --server ${info.natsUrl}${info.caFile ? ` --tlsca ${info.caFile}` : ""} --user observer --password "$(node -p "require('${info.credentialFiles.observer}').password")"`,
    `  logs      ${home.logDir}/<service>.log`,
    `  services  ${Object.entries(info.services)
      .map(([name, pid]) => `${name}:${pid ?? "?"}`)
      .join("  ")}`,
  ].join("\n");
}

/** Resolves on the first SIGINT/SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
}

export async function run(options: UpOptions): Promise<number> {
  const { supervisor, home } = createSupervisor(options);
  // A broken registry is refused here, naming the field, instead of a model service that never answers.
  const registryProblem = checkRegistryFile(options.modelsConfig ?? join(home.root, "models.json"));
  if (registryProblem) {
    process.stderr.write(`aide up: ${registryProblem}\n`);
    return 1;
  }
  const stopping = untilSignal();
  let info: StackInfo;
  try {
    // A signal during the start (a wait for nats-server or a service) stops what started and exits.
    const starting = supervisor.start();
    // Once a signal won the race, the abandoned start's rejection is expected, not a crash.
    starting.catch(() => undefined);
    const started = await Promise.race([starting, stopping]);
    if (typeof started === "string") {
      process.stderr.write(`aide up: ${started} during the start; stopping what started\n`);
      await supervisor.stop().catch(() => undefined);
      // Waits of the abandoned start (timers, the bus connection) must not keep the process alive.
      process.exit(started === "SIGINT" ? 130 : 143);
    }
    info = started;
  } catch (error) {
    const code = (error as { code?: string }).code;
    process.stderr.write(`aide up: ${code ? code + ": " : ""}${(error as Error).message}\n`);
    await supervisor.stop().catch(() => undefined);
    process.exit(1);
  }
  info.services = supervisor.pids();
  process.stdout.write(describeStack(info, home, info.gatewayUrl ? await panelLinkLine(info) : "") + "\nPress Ctrl-C to stop.\n");
  const signal = await stopping;
  process.stdout.write(`\n${signal}: draining and stopping every service...\n`);
  await supervisor.stop();
  process.stdout.write("stopped.\n");
  return 0;
}
