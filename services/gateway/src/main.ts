import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runService, startService } from "@aide/runtime";
import { createGateway } from "./gateway.js";
import { gatewayConfigFromEnv, readTokenFile } from "./gateway-config.js";
import { gatewayExposureFromEnv } from "./gateway-exposure.js";

const version = "0.1.0";
const panelDir = join(dirname(fileURLToPath(import.meta.url)), "..", "panel");

await runService("gateway", async ({ connection, logger }) => {
  const config = gatewayConfigFromEnv();
  const exposure = gatewayExposureFromEnv();
  const token = readTokenFile(config.tokenFile);
  const gateway = createGateway({
    connection,
    logger,
    token,
    port: config.port,
    version,
    panelDir,
    rateLimit: { max: config.rateLimitPerMinute, windowMs: 60_000 },
    evalDir: config.evalDir,
    ...exposure,
  });
  const port = await gateway.listen();
  // Registered so `$SRV.PING.aide-gateway` tells the supervisor the gateway is up.
  const service = await startService({ connection, name: "aide-gateway", version, description: "REST and WebSocket front door", endpoints: [], logger });
  const shown = exposure.host === "0.0.0.0" || exposure.host === "::" ? (exposure.allowedHosts[0]?.replace(/:\d+$/, "") ?? "127.0.0.1") : exposure.host;
  logger.info({ port, host: exposure.host, url: `${exposure.tls ? "https" : "http"}://${shown}:${port}`, allowed_hosts: exposure.allowedHosts }, "gateway listening");
  return async () => {
    await gateway.close();
    await service.stop();
  };
});
