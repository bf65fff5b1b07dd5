import { readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { aideError } from "@aide/contracts";
import type { OpenAiSpec } from "./model-spec.js";

/** Whether a URL's host is this machine's loopback (127.0.0.0/8, ::1, localhost). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1" || host.startsWith("::ffff:127.");
  return false;
}

/** Offline by default: an endpoint off loopback needs `allowRemote: true` in the config. */
export function assertEndpointAllowed(spec: OpenAiSpec): void {
  if (!spec.allowRemote && !isLoopbackUrl(spec.baseUrl)) throw aideError("REMOTE_NOT_ALLOWED", { url: spec.baseUrl });
}

/**
 * The API key from the environment variable or the 0600 file the spec names; never from a
 * request and never logged. A key file readable by others is refused.
 */
export function resolveApiKey(spec: OpenAiSpec, env: Record<string, string | undefined>): string | undefined {
  if (spec.apiKeyEnv) {
    const value = env[spec.apiKeyEnv];
    if (value && value.trim()) return value.trim();
  }
  if (spec.apiKeyFile) {
    let mode: number;
    try {
      mode = statSync(spec.apiKeyFile).mode;
    } catch {
      throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: `the API key file ${spec.apiKeyFile} does not exist` });
    }
    if ((mode & 0o077) !== 0) {
      throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: `the API key file ${spec.apiKeyFile} must be mode 0600 (it is ${(mode & 0o777).toString(8)})` });
    }
    const value = readFileSync(spec.apiKeyFile, "utf8").trim();
    if (value) return value;
  }
  if (spec.apiKeyEnv && !spec.apiKeyFile) {
    throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: `set the API key in the environment variable ${spec.apiKeyEnv}` });
  }
  return undefined;
}
