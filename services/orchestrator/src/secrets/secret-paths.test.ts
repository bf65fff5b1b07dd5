import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { secretPathRule, secretPathTable } from "./secret-paths.js";

describe("secret-looking paths", () => {
  it.each([
    ".env",
    ".env.local",
    ".env.production",
    "config/.env.example",
    "deploy/production.env",
    "certs/server.pem",
    "tls/server.key",
    "id_rsa",
    "home/.ssh/id_ed25519",
    ".ssh/config",
    ".npmrc",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    "credentials",
    ".aws/credentials",
    "gcp/credentials.json",
    "store.p12",
    "cert.pfx",
    "config/secrets.yaml",
    "secrets.json",
    ".pypirc",
    ".docker/config.json",
    ".kube/config",
    "infra/terraform.tfstate",
    "prod.tfvars",
    "./.ENV",
    "sub\\dir\\.env",
    "release.keystore",
    ".htpasswd",
  ])("%s is secret-looking", (path) => {
    expect(secretPathRule(path)).toBeDefined();
  });
  it.each([
    "src/env.ts",
    "environment.md",
    "id_map.ts",
    "home/.ssh/id_ed25519.pub",
    "keyboard.js",
    "monkey.key.md",
    "docs/credentials-guide.md.txt",
    "config.json",
    "README.md",
    "package.json",
    "src/secret-santa.ts",
  ])("%s is not", (path) => {
    expect(secretPathRule(path)).toBeUndefined();
  });
  it("gives a reason for every rule, and the orchestrator README carries the same table", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
    expect(readme).toContain(secretPathTable());
  });
});
