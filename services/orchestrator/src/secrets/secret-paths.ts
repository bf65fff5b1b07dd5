/**
 * The one table of secret-looking files. Reading one needs its own approval
 * (`secret_read`), which no auto-approve rule grants; search results and git diffs leave them out.
 * Matching is on the workspace-relative path the model names and, after the read, on the path the
 * tools service resolved (a symlink to `.env` is caught there). Case-insensitive.
 */
export interface SecretPathRule {
  /** How the rule reads in docs and in the approval ("`.env*`"). */
  pattern: string;
  reason: string;
  matches(name: string, segments: string[]): boolean;
}

const ext = (extensions: string[]) => (name: string) => extensions.some((extension) => name.endsWith(extension));
const exact = (names: string[]) => (name: string) => names.includes(name);

export const secretPathRules: readonly SecretPathRule[] = [
  {
    pattern: ".env, .env.*",
    reason: "environment files hold API keys, database passwords and tokens (example files too: they are often real copies)",
    matches: (name) => name === ".env" || name.startsWith(".env."),
  },
  { pattern: "*.env", reason: "named environment files (production.env) hold the same secrets", matches: (name) => name.endsWith(".env") && name !== ".env" },
  { pattern: "*.pem, *.key", reason: "PEM and key files hold TLS or SSH private keys (certificates share the extension and are gated too)", matches: ext([".pem", ".key"]) },
  { pattern: "*.p12, *.pfx", reason: "PKCS#12 bundles hold a private key with its certificate", matches: ext([".p12", ".pfx"]) },
  { pattern: "*.jks, *.keystore", reason: "Java keystores hold private keys", matches: ext([".jks", ".keystore"]) },
  { pattern: "id_rsa, id_dsa, id_ecdsa, id_ed25519 (and *_sk, not .pub)", reason: "SSH private keys", matches: (name) => /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/.test(name) },
  {
    pattern: ".ssh/** (not *.pub)",
    reason: "the SSH folder holds private keys and host credentials; public keys are public",
    matches: (name, segments) => segments.slice(0, -1).includes(".ssh") && !name.endsWith(".pub"),
  },
  { pattern: ".npmrc, .yarnrc.yml", reason: "package-registry auth tokens", matches: exact([".npmrc", ".yarnrc.yml"]) },
  { pattern: ".pypirc", reason: "PyPI upload tokens", matches: exact([".pypirc"]) },
  { pattern: ".netrc, _netrc", reason: "machine logins and passwords for curl, git and ftp", matches: exact([".netrc", "_netrc"]) },
  { pattern: ".pgpass", reason: "PostgreSQL passwords", matches: exact([".pgpass"]) },
  { pattern: ".my.cnf", reason: "MySQL client passwords", matches: exact([".my.cnf"]) },
  { pattern: ".git-credentials", reason: "git HTTPS credentials in clear text", matches: exact([".git-credentials"]) },
  { pattern: "credentials, credentials.*", reason: "cloud and tool credentials (.aws/credentials, credentials.json)", matches: (name) => name === "credentials" || name.startsWith("credentials.") },
  { pattern: "secrets.*, secret.*", reason: "application secrets files (secrets.yaml, secrets.json)", matches: (name) => name.startsWith("secrets.") || name.startsWith("secret.") },
  { pattern: ".htpasswd", reason: "password hashes for web servers", matches: exact([".htpasswd"]) },
  { pattern: ".docker/config.json, .dockercfg", reason: "container-registry auth", matches: (name, segments) => name === ".dockercfg" || (name === "config.json" && segments.at(-2) === ".docker") },
  { pattern: ".kube/config, kubeconfig", reason: "Kubernetes cluster credentials", matches: (name, segments) => name === "kubeconfig" || (name === "config" && segments.at(-2) === ".kube") },
  { pattern: "*.tfstate, *.tfvars", reason: "Terraform state and variables hold provider secrets in clear text", matches: ext([".tfstate", ".tfvars"]) },
  { pattern: "*.kdbx", reason: "password-manager databases", matches: ext([".kdbx"]) },
];

/** The rule a path falls under, or undefined. Backslashes count as separators; `./` and trailing slashes are ignored. */
export function secretPathRule(path: string): SecretPathRule | undefined {
  const segments = path
    .replace(/\\/g, "/")
    .toLowerCase()
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".");
  const name = segments.at(-1);
  if (name === undefined) return undefined;
  return secretPathRules.find((rule) => rule.matches(name, segments));
}

/** The table as Markdown rows (the README's copy is checked against it). */
export function secretPathTable(): string {
  return ["| pattern | why |", "| --- | --- |", ...secretPathRules.map((rule) => `| \`${rule.pattern}\` | ${rule.reason} |`)].join("\n");
}
