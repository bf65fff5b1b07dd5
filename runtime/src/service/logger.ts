import { pino, destination, stdTimeFunctions, type Logger, type DestinationStream } from "pino";

export type { Logger };

/** Keys whose values are never written to a log line, wherever they appear. */
export const redactedKeys = ["password", "pass", "token", "authorization", "api_key", "apiKey", "secret", "credentials", "content", "headers.authorization"];

/**
 * The root logger of one process: JSON lines to stderr (the supervisor sends them to the
 * service's log file). Modules take `logger.child({ module })`; nothing imports a global logger.
 */
export function createLogger(service: string, options: { level?: string; destination?: DestinationStream } = {}): Logger {
  const level = options.level ?? process.env.AIDE_LOG_LEVEL ?? "info";
  const paths = redactedKeys.flatMap((key) => [key, `*.${key}`]);
  return pino(
    {
      level,
      base: { service, pid: process.pid },
      redact: { paths, censor: "[redacted]" },
      timestamp: stdTimeFunctions.isoTime,
    },
    options.destination ?? destination({ fd: 2, sync: false }),
  );
}
