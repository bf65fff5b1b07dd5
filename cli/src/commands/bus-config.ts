import { resolve } from "node:path";
import { writeNatsConfig } from "@aide/runtime";

/**
 * `aide bus-config --out DIR`: writes the nats-server config and one credentials file per service
 * (what `aide up` generates at every start) for deployments that run the services elsewhere:
 * docker-compose, or a NATS cluster with `AIDE_NATS_URL`.
 */
export async function run(values: { out: string; listen: string; port: string; storeDir?: string }): Promise<number> {
  const port = Number(values.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    process.stderr.write(`aide bus-config: --port must be 1-65535, got ${values.port}\n`);
    return 2;
  }
  const generated = writeNatsConfig({ runDir: resolve(values.out), port, listenHost: values.listen, storeDir: values.storeDir });
  process.stdout.write(`wrote ${generated.configPath}\ncredentials: ${Object.values(generated.credentialFiles).join(" ")}\n`);
  return 0;
}
