/** Real nats-server processes from configs that `aide bus-config --cluster` generated (the product's own cluster setup). */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { findNatsServer, freePort, type GeneratedCluster } from "@aide/runtime";

export interface RunningClusterNode {
  name: string;
  url: string;
  monitorPort: number;
  process: ChildProcess;
  logPath: string;
}

export interface RunningCluster {
  nodes: RunningClusterNode[];
  stop(): Promise<void>;
}

/** A cluster file for `count` nodes on 127.0.0.1 with free ports (client, route, monitoring each). */
export async function loopbackClusterFile(count: number): Promise<{ name: string; nodes: Array<{ host: string; port: number; cluster_port: number; monitor_port: number }> }> {
  const nodes = [];
  for (let index = 0; index < count; index += 1) {
    nodes.push({ host: "127.0.0.1", port: await freePort(), cluster_port: await freePort(), monitor_port: await freePort() });
  }
  return { name: "aide", nodes };
}

/** Starts one real nats-server per generated node config (logs beside each config). */
export function startCluster(generated: GeneratedCluster): RunningCluster {
  const binary = findNatsServer();
  if (!binary) throw new Error("nats-server is not installed");
  const nodes = generated.nodes.map((node) => {
    const logPath = join(node.configPath, "..", "nats-server.log");
    const fd = openSync(logPath, "a", 0o600);
    const child = spawn(binary, ["-c", node.configPath], { stdio: ["ignore", fd, fd] });
    closeSync(fd);
    return { name: node.name, url: node.url, monitorPort: node.monitorPort, process: child, logPath };
  });
  return {
    nodes,
    async stop() {
      await Promise.all(
        nodes.map(
          (node) =>
            new Promise<void>((resolve) => {
              if (node.process.exitCode !== null || node.process.signalCode !== null) return resolve();
              const timer = setTimeout(() => node.process.kill("SIGKILL"), 5000);
              node.process.once("exit", () => { clearTimeout(timer); resolve(); });
              node.process.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}

/** A node's monitoring endpoint (`/routez`, `/jsz`), or undefined while it does not answer. */
export async function monitor(port: number, path: string): Promise<any> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2000) });
    return response.ok ? await response.json() : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves once every node has a route to each other node and they agree on a JetStream meta leader. */
export async function waitForClusterFormed(cluster: RunningCluster, timeoutMs = 45_000): Promise<{ leader: string; routes: number[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const routes = await Promise.all(cluster.nodes.map(async (node) => (await monitor(node.monitorPort, "/routez"))?.num_routes ?? 0));
    const leaders = await Promise.all(cluster.nodes.map(async (node) => (await monitor(node.monitorPort, "/jsz"))?.meta_cluster?.leader as string | undefined));
    const leader = leaders[0];
    if (routes.every((count) => count >= cluster.nodes.length - 1) && leader && leaders.every((each) => each === leader)) return { leader, routes };
    if (Date.now() > deadline) throw new Error(`cluster not formed: routes ${routes.join(",")}, leaders ${leaders.join(",")}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
