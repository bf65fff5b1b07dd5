import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { writeNatsConfig } from "@aide/runtime";

/**
 * `aide bus-config --out DIR`: writes the nats-server config and one credentials file per service
 * (what `aide up` generates at every start) for deployments that run the services elsewhere:
 * docker-compose, or a NATS cluster with `AIDE_NATS_URL`.
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string" },
      listen: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "4233" },
      "store-dir": { type: "string" },
    },
  });
  if (!values.out) {
    process.stderr.write("usage: aide bus-config --out DIR [--listen 127.0.0.1] [--port 4233] [--store-dir /data/jetstream]\n");
    return 2;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    process.stderr.write(`aide bus-config: --port must be 1-65535, got ${values.port}\n`);
    return 2;
  }
  const generated = writeNatsConfig({ runDir: resolve(values.out), port, listenHost: values.listen, storeDir: values["store-dir"] });
  process.stdout.write(`wrote ${generated.configPath}\ncredentials: ${Object.values(generated.credentialFiles).join(" ")}\n`);
  return 0;
}
