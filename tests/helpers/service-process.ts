import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import type { NatsConnection } from "nats";
import { requestLarge, waitForService } from "@aide/runtime";
import type { TestBus } from "./bus.js";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const sharedModelPath = process.env.AIDE_TEST_MODEL ?? join(repoRoot, "..", "shared", "models", "stories260K.gguf");

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process wrote to stderr (its pino log lines). */
  logs(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs the service through another program (bubblewrap with a service's profile, as `aide up` does). */
export type ServiceWrapper = (argv: string[], env: Record<string, string>) => { file: string; args: string[]; env: Record<string, string> };

/**
 * Starts the compiled service (`services/<name>/dist/main.js`, run `tsc -b` first) as a real
 * process with its own bus credentials, and resolves once it answers `$SRV.PING`.
 */
export async function startServiceProcess(
  bus: TestBus,
  name: string,
  options: { env?: Record<string, string>; args?: string[]; pinger?: NatsConnection; readyTimeoutMs?: number; wrap?: ServiceWrapper } = {},
): Promise<ServiceProcess> {
  const main = join(repoRoot, "services", name, "dist", "main.js");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    AIDE_NATS_URL: bus.url,
    AIDE_NATS_CREDS: bus.server.credentialFiles[name] ?? "",
    AIDE_LOG_LEVEL: "debug",
    // Hermetic by default: no loopback model servers of this machine join a test's registry.
    ...(name === "model" ? { AIDE_MODEL_DISCOVERY: "off" } : {}),
    ...options.env,
  };
  const argv = [process.execPath, main, ...(options.args ?? [])];
  const launch = options.wrap?.(argv, env) ?? { file: argv[0], args: argv.slice(1), env };
  const child = spawn(launch.file, launch.args, { env: launch.env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const pinger = options.pinger ?? (await bus.connectAs("tester"));
  await waitForService(pinger, name, {
    timeoutMs: options.readyTimeoutMs ?? 15_000,
    stillStarting: () => (child.exitCode !== null ? `exited with ${child.exitCode}` : undefined),
  }).catch((error: Error) => {
    child.kill("SIGKILL");
    throw new Error(`${name}: ${error.message}\n${output}`);
  });
  return {
    child,
    logs: () => output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 8000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Request helper for tests: sends JSON, returns the parsed reply (whatever its shape). */
export async function requestJson(connection: NatsConnection, subject: string, body: unknown, timeoutMs = 10_000): Promise<any> {
  const data = typeof body === "string" ? new TextEncoder().encode(body) : body instanceof Uint8Array ? body : new TextEncoder().encode(JSON.stringify(body));
  // As the services' own busRequest does: a body or reply over the max payload travels in chunks.
  const reply = await requestLarge(connection, subject, data, { timeoutMs });
  return JSON.parse(new TextDecoder().decode(reply));
}

/** Whether a process with this pid exists (signal 0 probes without touching it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
