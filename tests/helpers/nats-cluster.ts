/**
 * Real nats-server clusters for tests, from the configs the product itself generates
 * (`writeClusterConfig`, what `aide bus-config --cluster` writes): started, killed with -9,
 * restarted with the same config and store, and the JetStream state around them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { findNatsServer, freePort, writeClusterConfig, type BusCredentials, type GeneratedCluster } from "@aide/runtime";

export interface ClusterNode {
  index: number;
  name: string;
  url: string;
  port: number;
  monitorPort: number;
  configPath: string;
  logPath: string;
  process?: ChildProcess;
}

export interface TestCluster {
  nodes: ClusterNode[];
  credentialFiles: Record<string, string>;
  credentials(user: string): BusCredentials;
  /** The nodes' client URLs, comma-separated, in this order of node indexes (each service gets its own). */
  urls(order: number[]): string;
  /** A connection to the whole cluster that reconnects forever (it outlives any one node). */
  connectAs(user: string): Promise<NatsConnection>;
  /** kill -9, and wait for the process to be gone. */
  kill(index: number): Promise<void>;
  /** Starts a stopped node again with its config and store (same name, same ports); resolves once it accepts connections. */
  restart(index: number): Promise<void>;
  /** Resolves once every node accepts connections. */
  accepting(): Promise<void>;
  stop(): Promise<void>;
}

/** A cluster file for `count` nodes on 127.0.0.1 with free ports (client, route, monitoring each). */
export async function loopbackClusterFile(count: number): Promise<{ name: string; nodes: Array<{ host: string; port: number; cluster_port: number; monitor_port: number }> }> {
  // Each free port is released before the next is asked for, so the kernel can hand out the same
  // one twice (the config check then refuses two listeners on one port): ask again until distinct.
  const taken = new Set<number>();
  const distinctPort = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const nodes = [];
  for (let index = 0; index < count; index += 1) {
    nodes.push({ host: "127.0.0.1", port: await distinctPort(), cluster_port: await distinctPort(), monitor_port: await distinctPort() });
  }
  return { name: "aide", nodes };
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Starts one real nats-server per generated node config (its log beside the config). `cleanup`:
 * a folder removed on stop. Connections from `connectAs` trust the generated CA when there is one.
 */
export function startCluster(generated: GeneratedCluster, options: { cleanup?: string } = {}): TestCluster {
  const binary = findNatsServer();
  if (!binary) throw new Error("nats-server is not installed");
  const nodes: ClusterNode[] = generated.nodes.map((node, index) => ({
    index,
    name: node.name,
    url: node.url,
    port: node.clientPort,
    monitorPort: node.monitorPort,
    configPath: node.configPath,
    logPath: join(node.configPath, "..", "nats-server.log"),
  }));
  const connections: NatsConnection[] = [];
  const launch = (node: ClusterNode) => {
    const fd = openSync(node.logPath, "a", 0o600);
    node.process = spawn(binary, ["-c", node.configPath], { stdio: ["ignore", fd, fd] });
    closeSync(fd);
  };
  const accepting = async (node: ClusterNode) => {
    const deadline = Date.now() + 15_000;
    while (!(await canConnect(node.port))) {
      if (node.process?.exitCode !== null) throw new Error(`${node.name} exited at start; see ${node.logPath}:\n${readFileSync(node.logPath, "utf8").slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`${node.name} not ready on ${node.port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const kill = async (index: number, signal: NodeJS.Signals = "SIGKILL") => {
    const child = nodes[index].process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const escalate = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.kill(signal);
    await exited;
    clearTimeout(escalate);
  };
  const credentials = (user: string) => {
    const creds = generated.credentials[user];
    if (!creds) throw new Error(`no bus user ${user}`);
    return creds;
  };
  nodes.forEach(launch);
  return {
    nodes,
    credentialFiles: generated.credentialFiles,
    credentials,
    urls: (order) => order.map((index) => nodes[index].url).join(","),
    async connectAs(user) {
      const creds = credentials(user);
      const connection = await connect({
        servers: nodes.map((node) => node.url),
        user: creds.user,
        pass: creds.password,
        inboxPrefix: creds.inbox_prefix,
        ...(generated.caFile ? { tls: { caFile: generated.caFile } } : {}),
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
      });
      connections.push(connection);
      return connection;
    },
    kill: (index) => kill(index),
    async restart(index) {
      launch(nodes[index]);
      await accepting(nodes[index]);
    },
    async accepting() {
      await Promise.all(nodes.map(accepting));
    },
    async stop() {
      await Promise.allSettled(connections.map((connection) => connection.close()));
      await Promise.all(nodes.map((node) => kill(node.index, "SIGTERM")));
      if (options.cleanup) rmSync(options.cleanup, { recursive: true, force: true });
    },
  };
}

/**
 * A loopback cluster of `size` nodes without TLS (the services under test connect in plain text),
 * with a `tester` user allowed everything, running and accepting connections.
 */
export async function startNatsCluster(size = 3): Promise<TestCluster> {
  const runDir = mkdtempSync(join(tmpdir(), "aide-cluster-"));
  const generated = writeClusterConfig({
    outDir: runDir,
    cluster: await loopbackClusterFile(size),
    tls: false,
    extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } },
  });
  const cluster = startCluster(generated, { cleanup: runDir });
  try {
    await cluster.accepting();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
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
export async function waitForClusterFormed(cluster: TestCluster, timeoutMs = 45_000): Promise<{ leader: string; routes: number[] }> {
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

/** The server name of a stream's (or KV bucket's, `KV_<bucket>`) current leader; undefined during an election. */
export async function streamLeader(connection: NatsConnection, stream: string): Promise<string | undefined> {
  const jsm = await connection.jetstreamManager();
  const info = await jsm.streams.info(stream);
  return info.cluster?.leader;
}

/**
 * True when the stream has a leader and every replica is current: a node restarted after a kill
 * has caught up, so killing the next one keeps a quorum.
 */
export async function streamHealthy(connection: NatsConnection, stream: string, replicas: number): Promise<boolean> {
  const jsm = await connection.jetstreamManager();
  const info = await jsm.streams.info(stream).catch(() => undefined);
  const cluster = info?.cluster;
  if (!cluster?.leader) return false;
  const peers = cluster.replicas ?? [];
  return peers.length === replicas - 1 && peers.every((peer) => peer.current && !peer.offline);
}

/** Asks the stream's leader to step down (another replica takes over). */
export async function stepDownLeader(connection: NatsConnection, stream: string): Promise<void> {
  await connection.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, new Uint8Array(), { timeout: 5000 });
}
