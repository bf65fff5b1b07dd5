import { resolve } from "node:path";
import { writeClusterConfig, writeNatsConfig } from "@aide/runtime";
import { busClusterUsage, clusterConfigFrom, type BusClusterValues } from "./bus-cluster-options.js";

const usage = `usage: aide bus-config --out DIR [--listen 127.0.0.1] [--port 4233] [--store-dir /data/jetstream] [--rotate]
       aide bus-config --out DIR --cluster N [--host H1,H2,...] | --cluster-file FILE   (one config per node)
${busClusterUsage}
`;

/**
 * `aide bus-config --out DIR`: writes the nats-server config and one credentials file per service
 * (what `aide up` generates at every start) for deployments that run the services elsewhere:
 * docker-compose, or with `--cluster` a NATS cluster (one config per node) for `aide up --nats`.
 * Credentials already in DIR are kept unless `--rotate`.
 */
export async function run(parsed: Record<string, unknown>): Promise<number> {
  // commander's names (cli-program.ts) back to the flags' own names, as the cluster table has them;
  // `--no-tls` arrives as tls: false.
  const values: Record<string, string | boolean | undefined> = {
    out: parsed.out as string,
    listen: parsed.listen as string | undefined,
    port: parsed.port as string | undefined,
    "store-dir": parsed.storeDir as string | undefined,
    cluster: parsed.cluster as string | undefined,
    host: parsed.host as string | undefined,
    "cluster-file": parsed.clusterFile as string | undefined,
    "cluster-port": parsed.clusterPort as string | undefined,
    "monitor-port": parsed.monitorPort as string | undefined,
    rotate: parsed.rotate === true ? true : undefined,
    "no-tls": parsed.tls === false ? true : undefined,
  };
  let cluster;
  try {
    cluster = clusterConfigFrom({ ...(values as BusClusterValues), out: values.out as string, ...(values.port !== undefined ? { port: values.port as string } : {}), ...(values.listen !== undefined ? { listen: values.listen as string } : {}) });
  } catch (error) {
    process.stderr.write(`aide bus-config: ${(error as Error).message}\n${usage}`);
    return 2;
  }
  if (cluster) {
    const generated = writeClusterConfig(cluster);
    process.stdout.write(
      [
        ...generated.nodes.map((node) => `node ${node.name}: ${node.configPath}  (clients ${node.host}:${node.clientPort}, routes ${node.clusterPort}, monitor 127.0.0.1:${node.monitorPort})`),
        `credentials: ${resolve(values.out as string, "credentials")} (${Object.keys(generated.credentialFiles).length} users)`,
        ...(generated.caFile ? [`CA: ${generated.caFile}${generated.certificatesCreated ? " (new)" : " (kept)"}`] : []),
        `services:  aide up --services tools,checkpoints --nats ${generated.urls} --bus-dir ${resolve(values.out as string)}`,
        "",
      ].join("\n"),
    );
    return 0;
  }
  const port = Number(values.port ?? "4233");
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    process.stderr.write(`aide bus-config: --port must be 1-65535, got ${values.port}\n`);
    return 2;
  }
  const generated = writeNatsConfig({
    runDir: resolve(values.out as string),
    port,
    listenHost: (values.listen as string | undefined) ?? "127.0.0.1",
    ...(values["store-dir"] ? { storeDir: values["store-dir"] as string } : {}),
    reuseCredentials: values.rotate !== true,
  });
  process.stdout.write(`wrote ${generated.configPath}\ncredentials: ${Object.values(generated.credentialFiles).join(" ")}\n`);
  return 0;
}
