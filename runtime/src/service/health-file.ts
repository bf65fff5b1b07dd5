import { writeFileSync, rmSync } from "node:fs";
import type { NatsConnection } from "nats";
import type { Logger } from "pino";

/** How often the file is rewritten while the bus connection is up (a health check allows three misses). */
export const healthFileIntervalMs = 10_000;

/**
 * `AIDE_HEALTH_FILE`: a container's health check without bus credentials of its own. While the
 * service's bus connection is up, the file is rewritten every 10 s; while it is down (disconnected,
 * reconnecting, closed) it is left to age, so `find FILE -mmin -0.5` fails within 30 s. Removed at
 * stop. The health check reads only this file: no other user's credentials go into the container.
 */
export function startHealthFile(path: string, connection: NatsConnection, logger: Logger): () => void {
  let connected = true;
  const write = () => {
    if (!connected || connection.isClosed()) return;
    try {
      writeFileSync(path, `${JSON.stringify({ ok: true, at: new Date().toISOString() })}\n`);
    } catch (error) {
      logger.warn({ err: error, path }, "health file not written");
    }
  };
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "disconnect" || status.type === "reconnecting") connected = false;
      if (status.type === "reconnect") {
        connected = true;
        write();
      }
    }
  })().catch(() => undefined);
  write();
  const timer = setInterval(write, healthFileIntervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    rmSync(path, { force: true });
  };
}
