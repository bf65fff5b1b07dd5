import { connect, type NatsConnection } from "nats";
import type { Logger } from "pino";
import { aideError } from "@aide/contracts";
import type { BusConfig } from "./bus-config.js";
import { coalesceWrites } from "./coalesce-writes.js";

export interface ConnectBusOptions {
  config: BusConfig;
  name: string;
  logger: Logger;
  /** Reconnect forever (services) or fail fast (CLI, tests). */
  reconnect?: boolean;
  timeoutMs?: number;
  /** One socket write per event-loop turn (coalesce-writes.ts); services take `AIDE_BUS_COALESCE_WRITES` (off by default). */
  coalesceWrites?: boolean;
}

export async function connectBus(options: ConnectBusOptions): Promise<NatsConnection> {
  const { config, name, logger } = options;
  const connection = await connect({
    ...(config.caFile ? { tls: { caFile: config.caFile } } : {}),
    // A comma-separated list (the nodes of a cluster; `aide bus-config --cluster` prints it): the client picks one and fails over to the others.
    servers: config.url
      .split(",")
      .map((url) => url.trim())
      .filter((url) => url.length > 0),
    name,
    user: config.credentials?.user,
    pass: config.credentials?.password,
    inboxPrefix: config.credentials?.inbox_prefix,
    reconnect: options.reconnect ?? true,
    maxReconnectAttempts: options.reconnect === false ? 0 : -1,
    reconnectTimeWait: 250,
    timeout: options.timeoutMs ?? 5000,
    // nats.js otherwise captures two stack traces per request (an Error for the caller's context
    // and a ready-made timeout error), JetStream publishes and KV writes included: ~8 a turn in
    // bench:loop, 5 % of the orchestrator's busy time. Every caller here turns a bus error into an
    // AideError that names the subject and service (busRequest, the event sink, the session store).
    noAsyncTraces: true,
  }).catch((error: Error) => {
    // With a pinned CA, a server that does not speak TLS or presents another certificate is not
    // this stack's bus: refuse it by name rather than join it.
    if (config.caFile && /tls|certificate|self.signed|unable to verify|handshake|SSL/i.test(error.message)) {
      const detail = /^tls$|does not support tls/i.test(error.message) ? "the server does not offer TLS" : error.message;
      throw aideError("BUS_UNVERIFIED", { url: config.url, detail, ca: config.caFile });
    }
    throw error;
  });
  const coalesced = options.coalesceWrites === true && coalesceWrites(connection);
  if (options.coalesceWrites === true && !coalesced) logger.warn("this nats.js does not have the shape coalesce-writes.ts expects; its writes stay one per microtask");
  logger.info({ server: connection.getServer(), coalesce_writes: coalesced }, "connected to the bus");
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "pingTimer") continue;
      const level = status.type === "error" || status.type === "disconnect" ? "warn" : "debug";
      logger[level]({ status: status.type, data: String(status.data) }, "bus status");
    }
  })();
  return connection;
}
