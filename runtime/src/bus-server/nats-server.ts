import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, openSync, closeSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { aideError } from "@aide/contracts";
import { writeNatsConfig, type GeneratedNatsConfig, type NatsConfigOptions } from "./nats-config.js";
import { writeBusCertificates } from "./bus-certificates.js";

export const natsServerCandidates = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"];

export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AIDE_NATS_SERVER_BIN && existsSync(env.AIDE_NATS_SERVER_BIN)) return env.AIDE_NATS_SERVER_BIN;
  const fromPath = (env.PATH ?? "").split(":").map((dir) => join(dir, "nats-server"));
  return [...natsServerCandidates, ...fromPath].find((candidate) => existsSync(candidate));
}

/** An unused loopback port (bind :0, read it, release it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningNatsServer extends GeneratedNatsConfig {
  /** The CA clients pin, when started with `tls: true`. */
  caFile?: string;
  process: ChildProcess;
  logPath: string;
  stop(): Promise<void>;
}

export interface StartNatsServerOptions extends Omit<NatsConfigOptions, "port" | "tls"> {
  /** Serve TLS only, with a fresh per-stack CA (`aide up`); tests keep a plain bus. */
  tls?: boolean;
  /** 0 or absent: an ephemeral port. */
  port?: number;
  readyTimeoutMs?: number;
}

/** Generates the config, starts nats-server on 127.0.0.1, resolves once it accepts clients. */
export async function startNatsServer(options: StartNatsServerOptions): Promise<RunningNatsServer> {
  const binary = findNatsServer();
  if (!binary) {
    throw aideError("UNAVAILABLE", {
      service: "nats-server",
      detail: "nats-server is not installed; install the Debian package: apt-get install nats-server",
    });
  }
  const port = options.port && options.port > 0 ? options.port : await freePort();
  const certificates = options.tls ? writeBusCertificates(options.runDir) : undefined;
  const generated = writeNatsConfig({ ...options, port, tls: certificates });
  const logPath = join(options.runDir, "nats-server.log");
  const logFd = openSync(logPath, "a", 0o600);
  const child = spawn(binary, ["-c", generated.configPath], { stdio: ["ignore", logFd, logFd], detached: false });
  closeSync(logFd);

  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000);
  while (!(await canConnect(port))) {
    if (exited) throw aideError("UNAVAILABLE", { service: "nats-server", detail: `it exited at start; see ${logPath}` });
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw aideError("UNAVAILABLE", { service: "nats-server", detail: `not ready on port ${port}; see ${logPath}` });
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    ...generated,
    ...(certificates ? { caFile: certificates.caFile } : {}),
    process: child,
    logPath,
    async stop() {
      if (exited) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exit;
      clearTimeout(timer);
    },
  };
}

async function canConnect(port: number): Promise<boolean> {
  const { connect } = await import("node:net");
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
