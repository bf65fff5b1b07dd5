import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "nats";
import { findNatsServer, freePort, readCredentialsFile, startNatsServer, type RunningNatsServer } from "@aide/runtime";
import { repoRoot } from "../helpers/service-process.js";
import { waitForPort } from "../helpers/wait-for-port.js";
import { getJson, startStackProcess, type StackProcess } from "../helpers/stack-process.js";

/** Issue 13 item 6: no service connects to a bus whose identity it has not verified. */
describe("the stack's bus is TLS with a per-stack CA (aide up, sandboxed services)", () => {
  let home: string;
  let workspace: string;
  let stack: StackProcess;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-home-"));
    workspace = mkdtempSync(join(tmpdir(), "aide-ws-"));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace] });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it("every service answers over TLS; a client must pin the CA; the observer command names --tlsca", async () => {
    expect(stack.stack.nats_ca).toBe(join(home, "run", "tls", "ca.pem"));
    expect(readFileSync(join(home, "run", "nats-server.conf"), "utf8")).toContain("tls {");
    const health = await getJson(stack, "/api/health");
    expect(health.body.ok).toBe(true);
    const creds = readCredentialsFile(stack.stack.observer_credentials);
    const pinned = await connect({ servers: stack.natsUrl, user: creds.user, pass: creds.password, tls: { caFile: stack.stack.nats_ca } });
    await pinned.close();
    await expect(connect({ servers: stack.natsUrl, user: creds.user, pass: creds.password, reconnect: false, timeout: 3000 })).rejects.toThrow(/certificate/);
    expect(stack.output()).toContain(`--tlsca ${stack.stack.nats_ca}`);
  });

  it("a service sees the CA certificate and not the server's key (inside its sandbox)", () => {
    const pid = stack.stack.services.tools.pid as number;
    const look = spawnSync(
      "nsenter",
      ["-t", String(pid), "-m", "--", "sh", "-c", `cat '${stack.stack.nats_ca}' | head -1; test -e '${join(home, "run", "tls", "server-key.pem")}' && echo KEY-VISIBLE || echo key-hidden`],
      { encoding: "utf8", timeout: 10_000 },
    );
    expect(look.stdout).toContain("BEGIN CERTIFICATE");
    expect(look.stdout).toContain("key-hidden");
  });
});

describe("a service given the stack's CA and a foreign bus on the port", () => {
  let caServer: RunningNatsServer;
  let runDir: string;

  beforeAll(async () => {
    runDir = mkdtempSync(join(tmpdir(), "aide-ca-"));
    caServer = await startNatsServer({ runDir, tls: true });
  });

  afterAll(async () => {
    await caServer?.stop();
    rmSync(runDir, { recursive: true, force: true });
  });

  it("refuses a plain unauthenticated nats-server with BUS_UNVERIFIED and exits", async () => {
    const port = await freePort();
    const foreign = spawn(findNatsServer()!, ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    try {
      await waitForPort(port);
      const service = spawn(process.execPath, [join(repoRoot, "services", "checkpoints", "dist", "main.js")], {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/root",
          AIDE_NATS_URL: `nats://127.0.0.1:${port}`,
          AIDE_NATS_CREDS: caServer.credentialFiles.checkpoints!,
          AIDE_NATS_CA: caServer.caFile!,
          AIDE_WORKSPACE_ROOTS: runDir,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      service.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      service.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      const timer = setTimeout(() => service.kill("SIGKILL"), 30_000);
      const code = await new Promise<number | null>((resolve) => service.once("exit", (exitCode) => resolve(exitCode)));
      clearTimeout(timer);
      expect(code, output).toBe(1);
      expect(output).toContain("BUS_UNVERIFIED");
      expect(output).toContain("does not offer TLS");
    } finally {
      foreign.kill("SIGKILL");
    }
  });
});
