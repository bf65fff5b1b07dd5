import type { NatsConnection } from "nats";
import type { Logger } from "pino";
import { busConfigFromEnv, type BusConfig } from "../bus/bus-config.js";
import { connectBus } from "../bus/connect-bus.js";
import { coalesceWritesFromEnv } from "../bus/coalesce-writes.js";
import { startHealthFile } from "./health-file.js";
import { createLogger } from "./logger.js";
import { shutdownGraceMsFromEnv, shutdownMarginMs } from "./shutdown-settings.js";

export interface ServiceMainContext {
  connection: NatsConnection;
  logger: Logger;
  bus: BusConfig;
  /** Aborted on SIGTERM/SIGINT. */
  signal: AbortSignal;
}

/** What a service's main returns: how to stop what it started (before the bus is drained). */
export type ServiceStopper = () => Promise<void>;

/**
 * The process entry of every service: logger, bus connection with the service's own credentials,
 * start, then on SIGTERM/SIGINT: stop (the service stops taking requests and answers every one it
 * took within `AIDE_SHUTDOWN_GRACE_MS`), drain the bus connection, exit 0. An uncaught error is logged; the process exits non-zero so
 * the supervisor restarts it with back-off.
 */
export async function runService(name: string, main: (context: ServiceMainContext) => Promise<ServiceStopper>): Promise<void> {
  const logger = createLogger(name);
  const controller = new AbortController();
  process.on("uncaughtException", (error) => {
    logger.fatal({ err: error }, "uncaught exception");
    process.exit(70);
  });
  process.on("unhandledRejection", (error) => {
    logger.error({ err: error }, "unhandled rejection");
  });
  let connection: NatsConnection;
  let stop: ServiceStopper;
  let graceMs: number;
  try {
    graceMs = shutdownGraceMsFromEnv();
    const bus = busConfigFromEnv();
    const coalesce = coalesceWritesFromEnv();
    connection = await connectBus({ config: bus, name: `aide-${name}`, logger: logger.child({ module: "bus" }), coalesceWrites: coalesce });
    stop = await main({ connection, logger, bus, signal: controller.signal });
  } catch (error) {
    logger.fatal({ err: error }, "service failed to start");
    process.exitCode = 1;
    logger.flush();
    setTimeout(() => process.exit(1), 50).unref();
    return;
  }
  const stopHealth = process.env.AIDE_HEALTH_FILE ? startHealthFile(process.env.AIDE_HEALTH_FILE, connection, logger.child({ module: "health" })) : () => undefined;
  let stopping = false;
  const shutdown = async (signalName: string) => {
    if (stopping) return;
    stopping = true;
    // The stop answers every request it took within the grace (+ a moment to abort and answer
    // the rest); this bound is for a stop that hangs anyway (a wedged dependency).
    const bound = graceMs + shutdownMarginMs;
    logger.info({ signal: signalName, grace_ms: graceMs, bound_ms: bound }, "draining");
    controller.abort();
    stopHealth();
    const force = setTimeout(() => {
      logger.error({ bound_ms: bound }, "the stop did not finish within its bound; exiting anyway");
      logger.flush();
      process.exit(1);
    }, bound);
    force.unref();
    try {
      await stop();
      await connection.drain();
    } catch (error) {
      logger.warn({ err: error }, "drain failed");
    }
    logger.info("stopped");
    logger.flush();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  logger.info("ready");
}
