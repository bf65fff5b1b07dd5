import { connect, type NatsConnection } from "nats";
import type { Logger } from "pino";
import type { BusConfig } from "./bus-config.js";

export interface ConnectBusOptions {
  config: BusConfig;
  name: string;
  logger: Logger;
  /** Reconnect forever (services) or fail fast (CLI, tests). */
  reconnect?: boolean;
  timeoutMs?: number;
}

export async function connectBus(options: ConnectBusOptions): Promise<NatsConnection> {
  const { config, name, logger } = options;
  const connection = await connect({
    servers: config.url,
    name,
    user: config.credentials?.user,
    pass: config.credentials?.password,
    inboxPrefix: config.credentials?.inbox_prefix,
    reconnect: options.reconnect ?? true,
    maxReconnectAttempts: options.reconnect === false ? 0 : -1,
    reconnectTimeWait: 250,
    timeout: options.timeoutMs ?? 5000,
  });
  logger.info({ server: connection.getServer() }, "connected to the bus");
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "pingTimer") continue;
      const level = status.type === "error" || status.type === "disconnect" ? "warn" : "debug";
      logger[level]({ status: status.type, data: String(status.data) }, "bus status");
    }
  })();
  return connection;
}
