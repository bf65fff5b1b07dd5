import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { serviceNames, type ServiceName } from "@aide/contracts";

/**
 * The flags of `aide up` that run part of the stack on this machine against an existing bus (one
 * table, so any argument parser can be built from it); `serviceSubsetFrom` reads them.
 */
export const serviceSubsetFlags = [
  { flag: "services", type: "string", value: "tools,checkpoints", help: `run only these services (${serviceNames.join(", ")}); needs --nats` },
  { flag: "nats", type: "string", value: "URL1,URL2,...", help: "an existing bus (every node of a cluster): no nats-server is started" },
  { flag: "bus-dir", type: "string", value: "DIR", help: "what aide bus-config wrote: credentials/<service>.json and tls/ca.pem; default $AIDE_NATS_CREDS_DIR" },
] as const;

export const serviceSubsetUsage = serviceSubsetFlags.map((entry) => `  --${entry.flag} ${entry.value}  ${entry.help}`).join("\n");

export interface ServiceSubset {
  /** Undefined: all five. */
  services?: ServiceName[];
  /** The existing bus to join (from the flags; the environment's AIDE_NATS_URL is read by `aide up` itself). */
  external?: { url: string; credentialsDir: string; caFile?: string; busDir?: string };
}

/** Throws with a message naming the flag when a value is wrong. */
export function serviceSubsetFrom(values: { services?: unknown; nats?: unknown; "bus-dir"?: unknown }, env: NodeJS.ProcessEnv = process.env, workspaces: string[] = []): ServiceSubset {
  const subset: ServiceSubset = {};
  if (typeof values.services === "string") {
    const names = values.services
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name.length > 0);
    const unknown = names.filter((name) => !(serviceNames as readonly string[]).includes(name));
    if (unknown.length > 0 || names.length === 0) throw new Error(`--services: unknown service ${unknown.join(", ") || "(none given)"}; choose from ${serviceNames.join(", ")}`);
    subset.services = serviceNames.filter((name) => names.includes(name));
    // Part of a stack has no "current directory" default: a workspace host names what it serves.
    if (workspaces.length === 0 && subset.services.some((name) => name === "tools" || name === "checkpoints")) {
      throw new Error("--services with tools or checkpoints needs --workspace DIR (the roots this host serves)");
    }
    if (typeof values.nats !== "string" && !env.AIDE_NATS_URL) {
      throw new Error("--services runs part of a stack: give the bus it joins with --nats URL1,URL2,... (and --bus-dir DIR from aide bus-config)");
    }
  }
  if (typeof values.nats === "string") {
    const urls = values.nats
      .split(",")
      .map((url) => url.trim())
      .filter((url) => url.length > 0);
    const bad = urls.find((url) => !/^(nats|tls):\/\/[^/\s]+:\d{1,5}$/.test(url));
    if (urls.length === 0 || bad) throw new Error(`--nats: ${bad ?? "(empty)"} is not nats://HOST:PORT`);
    const busDir = typeof values["bus-dir"] === "string" ? resolve(values["bus-dir"]) : undefined;
    const credentialsDir = busDir ? join(busDir, "credentials") : env.AIDE_NATS_CREDS_DIR;
    if (!credentialsDir || !existsSync(credentialsDir)) {
      throw new Error(`--nats needs the services' credentials: --bus-dir DIR (what aide bus-config --out DIR wrote)${credentialsDir ? `; ${credentialsDir} does not exist` : ""}`);
    }
    const caFile = busDir && existsSync(join(busDir, "tls", "ca.pem")) ? join(busDir, "tls", "ca.pem") : env.AIDE_NATS_CA;
    subset.external = { url: urls.join(","), credentialsDir, ...(caFile ? { caFile } : {}), ...(busDir ? { busDir } : {}) };
  } else if (values["bus-dir"] !== undefined) {
    throw new Error("--bus-dir goes with --nats");
  }
  return subset;
}
