import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { writeBusCertificates, writeClusterConfig, writeNatsConfig } from "@aide/runtime";
import { busClusterUsage, clusterConfigFrom, type BusClusterValues } from "./bus-cluster-options.js";

const usage = `usage: aide bus-config --out DIR [--listen 127.0.0.1] [--port 4233] [--store-dir /data/jetstream] [--tls-host nats] [--tls-dir /etc/nats/tls] [--no-tls] [--rotate]
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
    cluster = clusterConfigFrom({
      ...(values as BusClusterValues),
      out: values.out as string,
      ...(values.port !== undefined ? { port: values.port as string } : {}),
      ...(values.listen !== undefined ? { listen: values.listen as string } : {}),
    });
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
  const runDir = resolve(values.out as string);
  const listenHost = (values.listen as string | undefined) ?? "127.0.0.1";
  // TLS as `aide up` has it: a per-stack CA that every service pins, the server certificate valid
  // for the listen address and the names given (a compose network reaches it as `nats`). Kept
  // across runs unless --rotate, so running containers keep trusting the CA they mounted.
  const tlsWanted = parsed.tls !== false;
  let tls: { caFile: string; certFile: string; keyFile: string; created: boolean } | undefined;
  if (tlsWanted) {
    const hosts = [
      ...new Set([
        ...(listenHost === "0.0.0.0" || listenHost === "::" ? [] : [listenHost]),
        "127.0.0.1",
        ...String(parsed.tlsHost ?? "")
          .split(",")
          .map((host) => host.trim())
          .filter(Boolean),
      ]),
    ];
    const existing = join(runDir, "tls", "ca.pem");
    const created = values.rotate === true || !existsSync(existing);
    tls = created ? { ...writeBusCertificates(runDir, hosts), created } : { caFile: existing, certFile: join(runDir, "tls", "server.pem"), keyFile: join(runDir, "tls", "server-key.pem"), created };
  }
  const seenFrom = parsed.tlsDir === undefined ? undefined : String(parsed.tlsDir);
  const generated = writeNatsConfig({
    runDir,
    port,
    listenHost,
    ...(values["store-dir"] ? { storeDir: values["store-dir"] as string } : {}),
    ...(tls ? { tls: seenFrom ? { certFile: `${seenFrom}/server.pem`, keyFile: `${seenFrom}/server-key.pem` } : { certFile: tls.certFile, keyFile: tls.keyFile } } : {}),
    reuseCredentials: values.rotate !== true,
  });
  process.stdout.write(
    `wrote ${generated.configPath}\ncredentials: ${Object.values(generated.credentialFiles).join(" ")}\n${tls ? `CA: ${tls.caFile}${tls.created ? " (new)" : " (kept)"}; clients pin it (AIDE_NATS_CA)\n` : "no TLS (--no-tls): a private network only\n"}`,
  );
  return 0;
}
