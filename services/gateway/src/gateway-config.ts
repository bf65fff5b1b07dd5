import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { aideError } from "@aide/contracts";

export interface GatewayConfig {
  port: number;
  tokenFile: string;
  /** Requests per minute per credential (`AIDE_GATEWAY_RATE_LIMIT`, default 3000). */
  rateLimitPerMinute: number;
  /** `$AIDE_HOME/eval` when AIDE_HOME is set (the supervisor sets it; the sandbox shows it read-only). */
  evalDir?: string;
}

export function gatewayConfigFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const rawPort = env.AIDE_GATEWAY_PORT ?? "4280";
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535) throw aideError("CONFIG_INVALID", { detail: `AIDE_GATEWAY_PORT=${rawPort} is not a port` });
  const tokenFile = env.AIDE_GATEWAY_TOKEN_FILE;
  if (!tokenFile) throw aideError("CONFIG_INVALID", { detail: "AIDE_GATEWAY_TOKEN_FILE is not set (aide up generates the token)" });
  const rawLimit = env.AIDE_GATEWAY_RATE_LIMIT ?? "3000";
  const rateLimitPerMinute = Number(rawLimit);
  if (!/^\d+$/.test(rawLimit) || rateLimitPerMinute < 1) throw aideError("CONFIG_INVALID", { detail: `AIDE_GATEWAY_RATE_LIMIT=${rawLimit} is not a positive number` });
  return { port, tokenFile, rateLimitPerMinute, ...(env.AIDE_HOME ? { evalDir: join(env.AIDE_HOME, "eval") } : {}) };
}

/** Reads the bearer token; refuses a file others can read (the token is the key to the agent). */
export function readTokenFile(path: string): string {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    throw aideError("CONFIG_INVALID", { detail: `the token file ${path} does not exist` });
  }
  if ((mode & 0o077) !== 0) {
    throw aideError("CONFIG_INVALID", { detail: `the token file ${path} has mode ${(mode & 0o777).toString(8)}; it must be 0600` });
  }
  const token = readFileSync(path, "utf8").trim();
  if (token.length < 16) throw aideError("CONFIG_INVALID", { detail: `the token in ${path} is shorter than 16 characters` });
  return token;
}
