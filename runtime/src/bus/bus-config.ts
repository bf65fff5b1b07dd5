import { readFileSync } from "node:fs";
import { z } from "zod";
import { aideError } from "@aide/contracts";

export const BusCredentialsSchema = z.object({
  user: z.string().min(1),
  password: z.string().min(1),
  /** Replies to this connection's requests arrive under this prefix; its users may subscribe only there. */
  inbox_prefix: z.string().regex(/^_INBOX_[A-Za-z0-9_-]+$/),
});
export type BusCredentials = z.infer<typeof BusCredentialsSchema>;

export interface BusConfig {
  url: string;
  credentials?: BusCredentials;
  /** The CA the server's certificate must chain to: set, a server without that certificate is refused. */
  caFile?: string;
}

/** Reads a credentials file (JSON, mode 0600, written by the supervisor). */
export function readCredentialsFile(path: string): BusCredentials {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (error) {
    throw aideError("CONFIG_INVALID", { detail: `cannot read the credentials file ${path}: ${(error as Error).message}` });
  }
  const parsed = BusCredentialsSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) {
    throw aideError("CONFIG_INVALID", { detail: `credentials file ${path}: ${parsed.error.issues.map((i) => i.path.join(".") + ": " + i.message).join("; ")}` });
  }
  return parsed.data;
}

/**
 * Where a service finds the bus: `AIDE_NATS_URL` and `AIDE_NATS_CREDS` (a file path, never the
 * secret itself, so it does not leak through the environment of child processes), and
 * `AIDE_NATS_CA`, the CA file the server's TLS certificate must chain to.
 */
export function busConfigFromEnv(env: NodeJS.ProcessEnv = process.env): BusConfig {
  const url = env.AIDE_NATS_URL ?? "nats://127.0.0.1:4233";
  const credsPath = env.AIDE_NATS_CREDS;
  const caFile = env.AIDE_NATS_CA ? { caFile: env.AIDE_NATS_CA } : {};
  return credsPath ? { url, credentials: readCredentialsFile(credsPath), ...caFile } : { url, ...caFile };
}
