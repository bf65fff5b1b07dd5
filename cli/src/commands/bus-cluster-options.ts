import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ClusterFileSchema, type ClusterConfigOptions } from "@aide/runtime";

/**
 * The cluster flags of `aide bus-config`, as one table (flag, value type, help) that any argument
 * parser can be built from; `clusterConfigFrom` turns the parsed values into the generator's options.
 */
export const busClusterFlags = [
  { flag: "cluster", type: "string", value: "N", help: "write N per-node configs (routes, distinct server names, one JetStream store each)" },
  { flag: "host", type: "string", value: "H1,H2,...", help: "the nodes' addresses (one for all, or one per node); default 127.0.0.1" },
  { flag: "cluster-file", type: "string", value: "FILE", help: 'JSON {"name":"aide","nodes":[{"host":"10.0.0.1","port":4233,"cluster_port":6233,"monitor_port":8233,"store_dir":"/data/js"}]}' },
  { flag: "cluster-port", type: "string", value: "6233", help: "route port (+1 per extra node on one host)" },
  { flag: "monitor-port", type: "string", value: "8233", help: "monitoring port, bound to 127.0.0.1 (+1 per extra node on one host)" },
  { flag: "rotate", type: "boolean", help: "new passwords, route secret and certificates even where earlier ones exist" },
  { flag: "no-tls", type: "boolean", help: "no TLS on client and route connections (a private network only)" },
] as const;

export type BusClusterValues = Partial<Record<(typeof busClusterFlags)[number]["flag"], string | boolean | undefined>>;

export const busClusterUsage = busClusterFlags.map((entry) => `  --${entry.flag}${"value" in entry ? ` ${entry.value}` : ""}  ${entry.help}`).join("\n");

function port(raw: string | boolean | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) throw new Error(`--${flag} must be 1-65535, got ${String(raw)}`);
  return value;
}

/** undefined: no cluster flag given (the single-server config). Throws with a message naming the flag. */
export function clusterConfigFrom(values: BusClusterValues & { out: string; port?: string; listen?: string }): ClusterConfigOptions | undefined {
  if (values.cluster === undefined && values["cluster-file"] === undefined) return undefined;
  if (values.cluster !== undefined && values["cluster-file"] !== undefined) throw new Error("give --cluster N or --cluster-file FILE, not both");
  let cluster;
  if (values["cluster-file"] !== undefined) {
    const file = resolve(String(values["cluster-file"]));
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new Error(`--cluster-file ${file}: ${(error as Error).message}`);
    }
    const parsed = ClusterFileSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`--cluster-file ${file}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
    cluster = parsed.data;
  } else {
    const size = Number(values.cluster);
    if (!Number.isInteger(size) || size < 1 || size > 32) throw new Error(`--cluster must be a node count 1-32, got ${String(values.cluster)}`);
    const hosts = String(values.host ?? "127.0.0.1")
      .split(",")
      .map((host) => host.trim())
      .filter((host) => host.length > 0);
    if (hosts.length !== 1 && hosts.length !== size) throw new Error(`--host names ${hosts.length} hosts for ${size} nodes: give one, or one per node`);
    cluster = { name: "aide", nodes: Array.from({ length: size }, (_, index) => ({ host: hosts.length === 1 ? hosts[0]! : hosts[index]! })) };
  }
  const clientPort = port(values.port, "port");
  const clusterPort = port(values["cluster-port"], "cluster-port");
  const monitorPort = port(values["monitor-port"], "monitor-port");
  return {
    outDir: resolve(values.out),
    cluster,
    ...(clientPort !== undefined ? { clientPort } : {}),
    ...(clusterPort !== undefined ? { clusterPort } : {}),
    ...(monitorPort !== undefined ? { monitorPort } : {}),
    ...(values.listen !== undefined ? { listenHost: values.listen } : {}),
    tls: values["no-tls"] !== true,
    rotate: values.rotate === true,
  };
}
