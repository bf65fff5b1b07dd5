import { readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { aideError } from "@aide/contracts";

/** Where the gateway listens and who may address it there. */
export interface GatewayExposure {
  /** `AIDE_GATEWAY_HOST`, default 127.0.0.1. */
  host: string;
  /** `AIDE_GATEWAY_TLS_CERT` + `AIDE_GATEWAY_TLS_KEY` (PEM): served over HTTPS. */
  tls?: { cert: Buffer; key: Buffer };
  /**
   * `AIDE_GATEWAY_ALLOWED_HOSTS` (comma-separated, `name` or `name:port`): the Host names accepted
   * besides the loopback ones (DNS rebinding); a name without a port means the gateway's port.
   */
  allowedHosts: string[];
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  return isIP(bare) === 4 && bare.startsWith("127.");
}

function readPem(path: string, name: string, secret: boolean): Buffer {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    throw aideError("CONFIG_INVALID", { detail: `${name}=${path} does not exist` });
  }
  if (secret && (mode & 0o077) !== 0) throw aideError("CONFIG_INVALID", { detail: `${name}=${path} has mode ${(mode & 0o777).toString(8)}; a private key must be 0600` });
  const data = readFileSync(path);
  if (!data.toString("utf8").includes("-----BEGIN ")) throw aideError("CONFIG_INVALID", { detail: `${name}=${path} is not a PEM file` });
  return data;
}

/**
 * Reads the bind settings. A non-loopback address is refused (GATEWAY_EXPOSURE_REFUSED) unless the
 * gateway serves TLS and names the Host values it answers to: the bearer token and the panel's
 * cookie must not cross a network in clear, and without a Host list any DNS name pointing at the
 * machine would be accepted.
 */
export function gatewayExposureFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayExposure {
  const host = (env.AIDE_GATEWAY_HOST ?? "").trim() || "127.0.0.1";
  if (host !== "0.0.0.0" && host !== "::" && !isIP(host.replace(/^\[|\]$/g, "")) && host !== "localhost") {
    throw aideError("CONFIG_INVALID", { detail: `AIDE_GATEWAY_HOST=${host} must be an IP address to bind (0.0.0.0 for every interface)` });
  }
  const allowedHosts = (env.AIDE_GATEWAY_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry.length > 0);
  const bad = allowedHosts.find((entry) => !/^(\[[0-9a-f:]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(entry));
  if (bad) throw aideError("CONFIG_INVALID", { detail: `AIDE_GATEWAY_ALLOWED_HOSTS has ${JSON.stringify(bad)}, which is not a host name or host:port` });
  const certFile = env.AIDE_GATEWAY_TLS_CERT;
  const keyFile = env.AIDE_GATEWAY_TLS_KEY;
  if ((certFile === undefined) !== (keyFile === undefined)) throw aideError("CONFIG_INVALID", { detail: "AIDE_GATEWAY_TLS_CERT and AIDE_GATEWAY_TLS_KEY go together" });
  const tls = certFile && keyFile ? { cert: readPem(certFile, "AIDE_GATEWAY_TLS_CERT", false), key: readPem(keyFile, "AIDE_GATEWAY_TLS_KEY", true) } : undefined;
  if (!isLoopbackHost(host)) {
    const missing = [...(tls ? [] : ["TLS (AIDE_GATEWAY_TLS_CERT, AIDE_GATEWAY_TLS_KEY)"]), ...(allowedHosts.length > 0 ? [] : ["a Host allow-list (AIDE_GATEWAY_ALLOWED_HOSTS)"])];
    if (missing.length > 0) throw aideError("GATEWAY_EXPOSURE_REFUSED", { host, detail: `it needs ${missing.join(" and ")}` });
  }
  return { host, ...(tls ? { tls } : {}), allowedHosts };
}
