import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { busPermissions, busUsers, type UserPermissions } from "./bus-permissions.js";
import { readCredentialsFile, type BusCredentials } from "../bus/bus-config.js";

export interface NatsConfigOptions {
  /** Directory for the config, credentials and the JetStream store. Created 0700. */
  runDir: string;
  port: number;
  /** Extra users (tests use one with wider rights); never written by `aide up`. */
  extraUsers?: Record<string, UserPermissions>;
  maxPayloadBytes?: number;
  /** Default 127.0.0.1; containers listen on their private network instead. */
  listenHost?: string;
  /** Where JetStream keeps its files; default `<runDir>/jetstream`. */
  storeDir?: string;
  /** Serve TLS only, with this certificate (clients pin the stack's CA). */
  tls?: { certFile: string; keyFile: string };
  /** Keep the passwords of existing credentials files (`aide bus-config` without `--rotate`). */
  reuseCredentials?: boolean;
}

export interface GeneratedNatsConfig {
  configPath: string;
  storeDir: string;
  url: string;
  port: number;
  credentials: Record<string, BusCredentials>;
  credentialFiles: Record<string, string>;
}

export function quote(value: string): string {
  return JSON.stringify(value);
}

function renderPermissions(permissions: UserPermissions): string {
  const list = (values: string[]) => `[${values.map(quote).join(", ")}]`;
  const side = (name: string, rule: { allow?: string[]; deny?: string[] }) => {
    const parts: string[] = [];
    if (rule.allow) parts.push(`allow: ${list(rule.allow)}`);
    if (rule.deny) parts.push(`deny: ${list(rule.deny)}`);
    return `${name}: { ${parts.join(", ")} }`;
  };
  const lines = [side("publish", permissions.publish), side("subscribe", permissions.subscribe)];
  if (permissions.allow_responses !== undefined) {
    const value = permissions.allow_responses;
    lines.push(typeof value === "boolean" ? `allow_responses: ${value}` : `allow_responses: { max: ${value.max}${value.expires ? `, expires: ${quote(value.expires)}` : ""} }`);
  }
  return `{ ${lines.join(", ")} }`;
}

/**
 * The credentials of every user: read from `<credentialDir>/<user>.json` when `reuse` is set and
 * the file is valid (so configs written for several nodes, or written again, keep working with the
 * services' files), otherwise a fresh random password; every file written 0600.
 */
export function ensureCredentials(credentialDir: string, users: string[], reuse: boolean): { credentials: Record<string, BusCredentials>; credentialFiles: Record<string, string> } {
  mkdirSync(credentialDir, { recursive: true, mode: 0o700 });
  chmodSync(credentialDir, 0o700);
  const credentials: Record<string, BusCredentials> = {};
  const credentialFiles: Record<string, string> = {};
  for (const user of users) {
    const file = join(credentialDir, `${user}.json`);
    let creds: BusCredentials | undefined;
    if (reuse && existsSync(file)) {
      try {
        const existing = readCredentialsFile(file);
        if (existing.user === user) creds = existing;
      } catch {
        creds = undefined;
      }
    }
    if (!creds) {
      creds = { user, password: randomBytes(24).toString("base64url"), inbox_prefix: `_INBOX_${user}` };
      writeFileSync(file, JSON.stringify(creds) + "\n", { mode: 0o600 });
    }
    chmodSync(file, 0o600);
    credentials[user] = creds;
    credentialFiles[user] = file;
  }
  return { credentials, credentialFiles };
}

/** The `authorization { users: [...] }` block: one user per service with its permission table. */
export function renderAuthorization(permissions: Record<string, UserPermissions>, credentials: Record<string, BusCredentials>): string {
  const userBlocks: string[] = [];
  for (const [user, rules] of Object.entries(permissions)) {
    const creds = credentials[user]!;
    // A user whose rules do not already cover its inbox gets it (extra test users, for example).
    const inboxAllowed = rules.subscribe.allow?.some((s) => s === `${creds.inbox_prefix}.>` || s === ">") ?? false;
    const effective: UserPermissions =
      inboxAllowed || (busUsers as readonly string[]).includes(user) ? rules : { ...rules, subscribe: { ...rules.subscribe, allow: [...(rules.subscribe.allow ?? []), `${creds.inbox_prefix}.>`] } };
    userBlocks.push(`    { user: ${quote(user)}, password: ${quote(creds.password)}, permissions: ${renderPermissions(effective)} }`);
  }
  return [`authorization {`, `  users: [`, userBlocks.join(",\n"), `  ]`, `}`].join("\n");
}

/**
 * Generates one user per service with a fresh random password (or the existing one, with
 * `reuseCredentials`) and its own inbox prefix, writes the nats-server config and one credentials
 * file per user (all 0600 in a 0700 directory).
 */
export function writeNatsConfig(options: NatsConfigOptions): GeneratedNatsConfig {
  const { runDir, port } = options;
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  chmodSync(runDir, 0o700);
  const credentialDir = join(runDir, "credentials");
  const storeDir = options.storeDir ?? join(runDir, "jetstream");
  if (!options.storeDir) mkdirSync(storeDir, { recursive: true, mode: 0o700 });

  const permissions: Record<string, UserPermissions> = { ...busPermissions(), ...(options.extraUsers ?? {}) };
  const { credentials, credentialFiles } = ensureCredentials(credentialDir, Object.keys(permissions), options.reuseCredentials ?? false);

  const config = [
    `# Generated by aide; one user per service. Do not edit: regenerated at every start.`,
    `listen: "${options.listenHost ?? "127.0.0.1"}:${port}"`,
    `server_name: "aide"`,
    `max_payload: ${options.maxPayloadBytes ?? 1024 * 1024}`,
    `jetstream { store_dir: ${quote(storeDir)}, max_memory_store: 268435456, max_file_store: 10737418240 }`,
    ...(options.tls ? [`tls { cert_file: ${quote(options.tls.certFile)}, key_file: ${quote(options.tls.keyFile)}, timeout: 2 }`] : []),
    renderAuthorization(permissions, credentials),
    ``,
  ].join("\n");
  const configPath = join(runDir, "nats-server.conf");
  writeFileSync(configPath, config, { mode: 0o600 });
  chmodSync(configPath, 0o600);
  return { configPath, storeDir, url: `nats://127.0.0.1:${port}`, port, credentials, credentialFiles };
}
