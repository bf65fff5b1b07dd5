import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { busPermissions, connectBus, findNatsServer, freePort, readCredentialsFile, startHealthFile } from "@aide/runtime";
import { serviceNames } from "@aide/contracts";
import { pino } from "pino";
import { repoRoot } from "../helpers/service-process.js";

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  read_only?: boolean;
}

/**
 * docker-compose.yml is not started here (a Docker client without an engine, and no image registry
 * to pull `node` or `nats` from); it must describe the same stack as `aide up`, and the bus config
 * it mounts is started for real with nats-server.
 */
describe("docker-compose.yml", () => {
  // Merge keys resolved, as Compose resolves the x-aide-service anchor.
  const compose = parse(readFileSync(join(repoRoot, "docker-compose.yml"), "utf8"), { merge: true }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };

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
    return readdirSync(dir)
      .map((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return sourceText(path);
        return name.endsWith(".ts") && !name.endsWith(".test.ts") ? readFileSync(path, "utf8") : "";
      })
      .join("\n");
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

  it.each([...serviceNames])("%s pins the per-stack CA, has a health check on its health file, and waits for a healthy bus", (name) => {
    const service = compose.services[name];
    expect(service.environment?.AIDE_NATS_CA).toBe("/run/aide/nats-ca.pem");
    expect(service.volumes).toContain("./deploy/run/tls/ca.pem:/run/aide/nats-ca.pem:ro");
    expect(service.environment?.AIDE_HEALTH_FILE).toBe("/tmp/aide-health");
    expect(service.healthcheck?.test.join(" ")).toContain("find /tmp/aide-health -mmin -0.5");
    expect(service.depends_on?.nats?.condition).toBe("service_healthy");
    expect(service.read_only).toBe(true);
  });

  it("nats mounts the TLS directory its config names, and the model and mcp services keep AIDE_HOME in a volume", () => {
    expect(compose.services.nats.volumes).toContain("./deploy/run/tls:/etc/nats/tls:ro");
    expect(compose.services.nats.healthcheck?.test.join(" ")).toContain("4233");
    expect(Object.keys(compose.volumes)).toContain("aide-home");
    for (const name of ["model", "mcp"]) expect(compose.services[name].volumes, name).toContain("aide-home:/var/lib/aide");
  });

  it("the bus config its comment says to write starts a TLS-only nats-server that a service reaches with its own credentials and the pinned CA", async () => {
    const server = findNatsServer();
    if (!server) throw new Error("nats-server is missing: bash scripts/install.sh installs it");
    const dir = mkdtempSync(join(tmpdir(), "aide-compose-bus-"));
    const port = await freePort();
    // The command from the file's header, with the paths of this machine instead of the containers'.
    const generate = spawnSync(
      process.execPath,
      [
        join(repoRoot, "cli", "dist", "main.js"),
        "bus-config",
        "--out",
        join(dir, "run"),
        "--listen",
        "127.0.0.1",
        "--port",
        String(port),
        "--store-dir",
        join(dir, "js"),
        "--tls-host",
        "nats",
        "--tls-dir",
        join(dir, "run", "tls"),
      ],
      { encoding: "utf8", env: { ...process.env, AIDE_HOME: dir } },
    );
    expect(generate.status, generate.stderr).toBe(0);
    expect(generate.stdout).toContain("CA: ");
    const san = spawnSync("openssl", ["x509", "-in", join(dir, "run", "tls", "server.pem"), "-noout", "-ext", "subjectAltName"], { encoding: "utf8" });
    expect(san.stdout).toContain("DNS:nats");
    const child = spawn(server, ["-c", join(dir, "run", "nats-server.conf")], { stdio: "ignore" });
    try {
      const credentials = readCredentialsFile(join(dir, "run", "credentials", "tools.json"));
      const logger = pino({ level: "silent" });
      const connect = (caFile?: string) => connectBus({ config: { url: `nats://127.0.0.1:${port}`, credentials, ...(caFile ? { caFile } : {}) }, name: "compose-check", logger });
      let connection: Awaited<ReturnType<typeof connectBus>> | undefined;
      for (let attempt = 0; attempt < 100 && !connection; attempt += 1) {
        connection = await connect(join(dir, "run", "tls", "ca.pem")).catch(async () => (await new Promise((resolve) => setTimeout(resolve, 50)), undefined));
      }
      expect(connection, "a service with its credentials and the pinned CA connects").toBeDefined();
      // The health file a container's check reads: written while connected, gone at stop.
      const healthPath = join(dir, "aide-health");
      const stopHealth = startHealthFile(healthPath, connection!, logger);
      expect(JSON.parse(readFileSync(healthPath, "utf8"))).toMatchObject({ ok: true });
      stopHealth();
      expect(existsSync(healthPath)).toBe(false);
      await connection!.close();
      // Without TLS the server refuses the client: the bus is TLS-only.
      await expect(connectBus({ config: { url: `nats://127.0.0.1:${port}`, credentials }, name: "plain", logger })).rejects.toThrow();
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
