import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { aideError } from "@aide/contracts";
import { busPermissions, type UserPermissions } from "./bus-permissions.js";
import { writeClusterCertificates } from "./cluster-certificates.js";
import { ensureCredentials, quote, renderAuthorization } from "./nats-config.js";
import type { BusCredentials } from "../bus/bus-config.js";

/** One node of a cluster file (`aide bus-config --cluster-file FILE`): where it runs and listens. */
export const ClusterNodeSpecSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, - and _")
    .optional(),
  host: z.string().min(1).describe("the address clients and the other nodes reach this node by"),
  port: z.number().int().min(1).max(65535).optional(),
  cluster_port: z.number().int().min(1).max(65535).optional(),
  monitor_port: z.number().int().min(1).max(65535).optional(),
  store_dir: z.string().min(1).optional(),
});
export const ClusterFileSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default("aide"),
  nodes: z.array(ClusterNodeSpecSchema).min(1).max(32),
});
export type ClusterFile = z.infer<typeof ClusterFileSchema>;

export interface ClusterConfigOptions {
  outDir: string;
  cluster: ClusterFile;
  /** Defaults for nodes that name no port; a port repeats on one host +1 per node (loopback clusters). */
  clientPort?: number;
  clusterPort?: number;
  monitorPort?: number;
  /** Where each node listens; default the node's own host. */
  listenHost?: string;
  /** TLS with one CA on client and route connections (default); false only for a private network. */
  tls?: boolean;
  /** New passwords, route secret and certificates even where earlier ones exist. */
  rotate?: boolean;
  extraUsers?: Record<string, UserPermissions>;
  maxPayloadBytes?: number;
}

export interface GeneratedClusterNode {
  name: string;
  host: string;
  clientPort: number;
  clusterPort: number;
  monitorPort: number;
  configPath: string;
  storeDir: string;
  url: string;
}

export interface GeneratedCluster {
  nodes: GeneratedClusterNode[];
  /** Every node's client URL, comma-separated: the value of `--nats` / `AIDE_NATS_URL`. */
  urls: string;
  credentials: Record<string, BusCredentials>;
  credentialFiles: Record<string, string>;
  caFile?: string;
  /** Whether the certificates (and so the CA services pin) are new in this run. */
  certificatesCreated: boolean;
  manifestPath: string;
}

const RouteSecretSchema = z.object({ user: z.literal("route"), password: z.string().min(16) });

function routeSecret(file: string, rotate: boolean): z.infer<typeof RouteSecretSchema> {
  if (!rotate && existsSync(file)) {
    try {
      return RouteSecretSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    } catch {
      // Unreadable: a new one below.
    }
  }
  const secret = { user: "route" as const, password: randomBytes(24).toString("base64url") };
  writeFileSync(file, JSON.stringify(secret) + "\n", { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

function placeNodes(options: ClusterConfigOptions): Array<Omit<GeneratedClusterNode, "configPath" | "url"> & { storeDir: string }> {
  const seen = new Map<string, number>();
  const nodes = options.cluster.nodes.map((spec, index) => {
    const onHost = seen.get(spec.host) ?? 0;
    seen.set(spec.host, onHost + 1);
    const name = spec.name ?? `${options.cluster.name}-${index + 1}`;
    return {
      name,
      host: spec.host,
      clientPort: spec.port ?? (options.clientPort ?? 4233) + onHost,
      clusterPort: spec.cluster_port ?? (options.clusterPort ?? 6233) + onHost,
      monitorPort: spec.monitor_port ?? (options.monitorPort ?? 8233) + onHost,
      storeDir: spec.store_dir ?? join(options.outDir, name, "jetstream"),
    };
  });
  const names = new Set(nodes.map((node) => node.name));
  if (names.size !== nodes.length) throw aideError("CONFIG_INVALID", { detail: "two cluster nodes have the same name" });
  const endpoints = nodes.flatMap((node) => [`${node.host}:${node.clientPort}`, `${node.host}:${node.clusterPort}`, `${node.host}:${node.monitorPort}`]);
  const clash = endpoints.find((endpoint, index) => endpoints.indexOf(endpoint) !== index);
  if (clash) throw aideError("CONFIG_INVALID", { detail: `two listeners of the cluster use ${clash}` });
  return nodes;
}

/**
 * Writes one nats-server config per node under `<outDir>/<node>/`: a distinct server_name, a
 * cluster block with routes to every other node, its own JetStream store, the same users and
 * permissions everywhere, and (by default) TLS with one CA for client and route connections. The
 * per-service credentials, route secret and certificates are written once and reused by later runs
 * (so a config regenerated for one node still matches the others and the services) unless `rotate`.
 */
export function writeClusterConfig(options: ClusterConfigOptions): GeneratedCluster {
  const { outDir } = options;
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  chmodSync(outDir, 0o700);
  const rotate = options.rotate ?? false;
  const nodes = placeNodes(options);
  const permissions: Record<string, UserPermissions> = { ...busPermissions(), ...(options.extraUsers ?? {}) };
  const { credentials, credentialFiles } = ensureCredentials(join(outDir, "credentials"), Object.keys(permissions), !rotate);
  const route = routeSecret(join(outDir, "route-secret.json"), rotate);
  const tls = options.tls ?? true;
  const certificates = tls
    ? writeClusterCertificates(
        join(outDir, "tls"),
        nodes.map((node) => ({ name: node.name, hosts: [node.host] })),
        rotate,
      )
    : undefined;
  const authorization = renderAuthorization(permissions, credentials);

  const generated = nodes.map((node) => {
    const nodeDir = join(outDir, node.name);
    mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
    if (node.storeDir.startsWith(outDir)) mkdirSync(node.storeDir, { recursive: true, mode: 0o700 });
    const listen = options.listenHost ?? node.host;
    const routes = nodes.filter((other) => other.name !== node.name).map((other) => quote(`nats-route://${route.user}:${route.password}@${other.host}:${other.clusterPort}`));
    const files = certificates?.nodes[node.name];
    const tlsBlock = (verify: boolean) =>
      files ? `tls { cert_file: ${quote(files.certFile)}, key_file: ${quote(files.keyFile)}, ca_file: ${quote(certificates!.caFile)}${verify ? ", verify: true" : ""}, timeout: 2 }` : "";
    const config = [
      `# Generated by aide bus-config for node ${node.name} of cluster ${options.cluster.name}. The same users on every node.`,
      `listen: ${quote(`${listen}:${node.clientPort}`)}`,
      `server_name: ${quote(node.name)}`,
      `max_payload: ${options.maxPayloadBytes ?? 1024 * 1024}`,
      // Monitoring (routez, jsz) on loopback only: it is not authenticated.
      `http: ${quote(`127.0.0.1:${node.monitorPort}`)}`,
      `jetstream { store_dir: ${quote(node.storeDir)}, max_memory_store: 268435456, max_file_store: 10737418240 }`,
      ...(files ? [tlsBlock(false)] : []),
      // One node is a plain server: a JetStream cluster without routes refuses to start.
      ...(nodes.length === 1
        ? []
        : [
            `cluster {`,
            `  name: ${quote(options.cluster.name)}`,
            `  listen: ${quote(`${listen}:${node.clusterPort}`)}`,
            `  authorization { user: ${quote(route.user)}, password: ${quote(route.password)}, timeout: 2 }`,
            ...(files ? [`  ${tlsBlock(true)}`] : []),
            `  routes: [${routes.join(", ")}]`,
            `}`,
          ]),
      authorization,
      ``,
    ].join("\n");
    const configPath = join(nodeDir, "nats-server.conf");
    writeFileSync(configPath, config, { mode: 0o600 });
    chmodSync(configPath, 0o600);
    return { ...node, configPath, url: `nats://${node.host}:${node.clientPort}` };
  });
  const urls = generated.map((node) => node.url).join(",");
  const manifestPath = join(outDir, "cluster.json");
  const manifest = {
    name: options.cluster.name,
    urls,
    ...(certificates ? { ca: certificates.caFile } : {}),
    credentials: join(outDir, "credentials"),
    nodes: generated.map(({ name, host, clientPort, clusterPort, monitorPort, configPath, storeDir }) => ({
      name,
      host,
      port: clientPort,
      cluster_port: clusterPort,
      monitor_port: monitorPort,
      config: configPath,
      store_dir: storeDir,
    })),
  };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 });
  return {
    nodes: generated,
    urls,
    credentials,
    credentialFiles,
    ...(certificates ? { caFile: certificates.caFile } : {}),
    certificatesCreated: certificates?.created ?? false,
    manifestPath,
  };
}
