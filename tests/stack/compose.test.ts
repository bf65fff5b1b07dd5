import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { busPermissions } from "@aide/runtime";
import { serviceNames } from "@aide/contracts";
import { repoRoot } from "../helpers/service-process.js";

/** docker-compose.yml is not run here (no Docker engine); it must describe the same stack as `aide up`. */
describe("docker-compose.yml", () => {
  const compose = parse(readFileSync(join(repoRoot, "docker-compose.yml"), "utf8")) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string>; volumes?: string[]; ports?: string[] }>;
  };

  it("names nats and the six services, nothing else", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["nats", ...serviceNames].sort());
  });

  it.each([...serviceNames])("%s runs its own entry point with its own bus credentials", (name) => {
    const service = compose.services[name];
    expect(service.command).toEqual(["node", `services/${name}/dist/main.js`]);
    expect(service.environment?.AIDE_NATS_URL).toBe("nats://nats:4233");
    expect(service.environment?.AIDE_NATS_CREDS).toBe(`/run/aide/credentials/${name}.json`);
    expect(busPermissions()[name], `bus user ${name}`).toBeDefined();
    // Only its own credentials file is mounted.
    const mounted = (service.volumes ?? []).filter((v) => v.includes("/credentials/"));
    expect(mounted).toEqual([`./deploy/run/credentials/${name}.json:/run/aide/credentials/${name}.json:ro`]);
  });

  it("publishes the bus and the gateway on loopback only, on the supervisor's default ports", () => {
    expect(compose.services.nats.ports).toEqual(["127.0.0.1:4233:4233"]);
    expect(compose.services.gateway.ports).toEqual(["127.0.0.1:4280:4280"]);
    for (const [name, service] of Object.entries(compose.services)) {
      if (name !== "nats" && name !== "gateway") expect(service.ports, name).toBeUndefined();
    }
  });

  it("gives workspace access only to tools, checkpoints and mcp, and model files only to model", () => {
    const mounts = (name: string) => (compose.services[name].volumes ?? []).join(" ");
    for (const name of ["orchestrator", "gateway", "model"]) expect(mounts(name)).not.toContain("/workspace");
    for (const name of ["tools", "checkpoints", "mcp"]) expect(mounts(name)).toContain(":/workspace");
    expect(mounts("model")).toContain("/var/lib/aide/models:ro");
  });

  /** Every .ts file's text under a folder (tests excluded). */
  function sourceText(dir: string): string {
    return readdirSync(dir).map((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceText(path);
      return name.endsWith(".ts") && !name.endsWith(".test.ts") ? readFileSync(path, "utf8") : "";
    }).join("\n");
  }

  it.each([...serviceNames])("%s: every AIDE_* setting the file gives is one the code reads", (name) => {
    const code = sourceText(join(repoRoot, "services", name, "src")) + sourceText(join(repoRoot, "runtime", "src"));
    for (const key of Object.keys(compose.services[name].environment ?? {})) {
      expect(code.includes(key), `${name} is given ${key}, which no code reads`).toBe(true);
    }
  });

  it("the gateway, bound to the container's network, has TLS and a Host allow-list (it refuses to start otherwise)", () => {
    const environment = compose.services.gateway.environment ?? {};
    expect(environment.AIDE_GATEWAY_HOST).toBe("0.0.0.0");
    expect(environment.AIDE_GATEWAY_TLS_CERT).toBeTruthy();
    expect(environment.AIDE_GATEWAY_TLS_KEY).toBeTruthy();
    expect(environment.AIDE_GATEWAY_ALLOWED_HOSTS).toBeTruthy();
  });
});
