import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { findNatsServer, freePort, writeNatsConfig, type BusCredentials } from "@aide/runtime";

export interface ClusterNode {
  index: number;
  name: string;
  port: number;
  clusterPort: number;
  url: string;
  storeDir: string;
  configPath: string;
  logPath: string;
  process?: ChildProcess;
}

export interface TestCluster {
  runDir: string;
  nodes: ClusterNode[];
  credentialFiles: Record<string, string>;
  credentials(user: string): BusCredentials;
  /** The nodes' client URLs, comma-separated, in this order of node indexes (each service gets its own). */
  urls(order: number[]): string;
  /** A connection to the whole cluster that reconnects forever (it outlives any one node). */
  connectAs(user: string): Promise<NatsConnection>;
  /** kill -9, and wait for the process to be gone. */
  kill(index: number): Promise<void>;
  /** Starts a stopped node again with its config and store (same name, same ports). */
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Per-node configs written by hand for a loopback cluster (the users, passwords and permissions of
 * the generated single-server config, plus a distinct server name, JetStream store and a cluster
 * block with routes to every other node). `aide bus-config --cluster` is the product's way; this
 * helper only has to be a real cluster for the tests.
 */
function nodeConfig(base: string, node: ClusterNode, nodes: ClusterNode[]): string {
  const replace = (text: string, pattern: RegExp, value: string) => {
    if (!pattern.test(text)) throw new Error(`the generated config has no ${pattern}`);
    return text.replace(pattern, value);
  };
  let text = replace(base, /^listen: .*$/m, `listen: "127.0.0.1:${node.port}"`);
  text = replace(text, /^server_name: .*$/m, `server_name: ${JSON.stringify(node.name)}`);
  text = replace(text, /^jetstream \{ store_dir: [^,]+,/m, `jetstream { store_dir: ${JSON.stringify(node.storeDir)},`);
  const routes = nodes.filter((other) => other !== node).map((other) => JSON.stringify(`nats-route://127.0.0.1:${other.clusterPort}`));
  return `${text}\ncluster {\n  name: "aide-test"\n  listen: "127.0.0.1:${node.clusterPort}"\n  routes: [${routes.join(", ")}]\n}\n`;
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

export async function startNatsCluster(size = 3): Promise<TestCluster> {
  const binary = findNatsServer();
  if (!binary) throw new Error("nats-server is not installed");
  const runDir = mkdtempSync(join(tmpdir(), "aide-cluster-"));
  const nodes: ClusterNode[] = [];
  for (let index = 0; index < size; index += 1) {
    const name = `aide-n${index + 1}`;
    const dir = join(runDir, name);
    mkdirSync(join(dir, "jetstream"), { recursive: true, mode: 0o700 });
    const port = await freePort();
    nodes.push({ index, name, port, clusterPort: await freePort(), url: `nats://127.0.0.1:${port}`, storeDir: join(dir, "jetstream"), configPath: join(dir, "nats-server.conf"), logPath: join(dir, "nats-server.log") });
  }
  // One set of users for every node: a client authenticates the same wherever it lands.
  const base = writeNatsConfig({
    runDir: join(runDir, "shared"),
    port: nodes[0].port,
    extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } },
  });
  const baseText = readFileSync(base.configPath, "utf8");
  for (const node of nodes) writeFileSync(node.configPath, nodeConfig(baseText, node, nodes), { mode: 0o600 });

  const connections: NatsConnection[] = [];
  const launch = async (node: ClusterNode) => {
    const logFd = openSync(node.logPath, "a", 0o600);
    const child = spawn(binary, ["-c", node.configPath], { stdio: ["ignore", logFd, logFd] });
    closeSync(logFd);
    node.process = child;
    const deadline = Date.now() + 15_000;
    while (!(await canConnect(node.port))) {
      if (child.exitCode !== null) throw new Error(`${node.name} exited at start; see ${node.logPath}:\n${readFileSync(node.logPath, "utf8").slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`${node.name} not ready on ${node.port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const kill = async (index: number) => {
    const child = nodes[index].process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  await Promise.all(nodes.map(launch));
  const credentials = (user: string) => {
    const creds = base.credentials[user];
    if (!creds) throw new Error(`no bus user ${user}`);
    return creds;
  };
  return {
    runDir,
    nodes,
    credentialFiles: base.credentialFiles,
    credentials,
    urls: (order) => order.map((index) => nodes[index].url).join(","),
    async connectAs(user) {
      const creds = credentials(user);
      const connection = await connect({
        servers: nodes.map((node) => node.url),
        user: creds.user,
        pass: creds.password,
        inboxPrefix: creds.inbox_prefix,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
      });
      connections.push(connection);
      return connection;
    },
    kill,
    restart: (index) => launch(nodes[index]),
    async stop() {
      await Promise.allSettled(connections.map((connection) => connection.close()));
      await Promise.all(nodes.map((node) => kill(node.index)));
      rmSync(runDir, { recursive: true, force: true });
    },
  };
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
