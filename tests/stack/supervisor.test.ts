import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "nats";
import { repoRoot, processAlive } from "../helpers/service-process.js";

interface Stack {
  nats_url: string;
  nats_ca?: string;
  nats_pid?: number;
  pid: number;
  unsandboxed_services: boolean;
  services: Record<string, { pid: number | null; launcher_pid: number | null; restarts: number }>;
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("aide up (the supervisor, real processes)", () => {
  let home: string;
  let workspace: string;
  let supervisor: ChildProcess;
  let output = "";
  const readStack = (): Stack | undefined => {
    const file = join(home, "stack.json");
    return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Stack) : undefined;
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-home-"));
    workspace = mkdtempSync(join(tmpdir(), "aide-ws-"));
    supervisor = spawn(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "up", "--nats-port", "0", "--gateway-port", "0", "--workspace", workspace], {
      env: { ...process.env, AIDE_HOME: home, AIDE_NATS_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    supervisor.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    supervisor.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await waitFor(
      "aide is up",
      () =>
        output.includes("aide is up")
          ? true
          : supervisor.exitCode !== null
            ? (() => {
                throw new Error(output);
              })()
            : undefined,
      90_000,
    );
  });

  afterAll(async () => {
    if (supervisor.exitCode === null) supervisor.kill("SIGKILL");
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it("writes its files with private modes and starts every service", () => {
    const stack = readStack()!;
    expect(Object.keys(stack.services).sort()).toEqual(["checkpoints", "gateway", "mcp", "model", "orchestrator", "tools"]);
    for (const service of Object.values(stack.services)) expect(processAlive(service.pid!)).toBe(true);
    for (const file of ["run/nats-server.conf", "run/gateway.token", "run/credentials/tools.json"]) {
      expect(statSync(join(home, file)).mode & 0o777, file).toBe(0o600);
    }
    expect(output).toContain("gateway");
    // No secret is printed.
    const token = readFileSync(join(home, "run", "gateway.token"), "utf8").trim();
    expect(output).not.toContain(token);
  });

  it("restarts a service killed with SIGKILL, and the next request succeeds", async () => {
    const before = readStack()!;
    const oldPid = before.services.tools.pid!;
    process.kill(oldPid, "SIGKILL");
    const after = await waitFor("tools restarted", () => {
      const stack = readStack();
      return stack && stack.services.tools.pid !== oldPid && stack.services.tools.restarts >= 1 ? stack : undefined;
    });
    const creds = JSON.parse(readFileSync(join(home, "run", "credentials", "orchestrator.json"), "utf8"));
    let connection: NatsConnection | undefined;
    try {
      connection = await connect({ servers: after.nats_url, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix, tls: { caFile: after.nats_ca! } });
      let answer: { ok: boolean } | undefined;
      for (let attempt = 0; attempt < 100 && !answer; attempt++) {
        try {
          const message = await connection.request("agent.tools.list", new TextEncoder().encode("{}"), { timeout: 2000 });
          answer = JSON.parse(new TextDecoder().decode(message.data));
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      expect(answer?.ok).toBe(true);
    } finally {
      await connection?.close();
    }
  });

  it("on SIGINT stops every child process within 10 s", async () => {
    const stack = readStack()!;
    const pids = [...Object.values(stack.services).flatMap((s) => [s.pid!, s.launcher_pid].filter((pid): pid is number => typeof pid === "number")), stack.nats_pid!];
    expect(stack.unsandboxed_services).toBe(false);
    expect(pids.every(processAlive)).toBe(true);
    const exited = new Promise<number | null>((resolve) => supervisor.once("exit", (code) => resolve(code)));
    const started = Date.now();
    supervisor.kill("SIGINT");
    const code = await exited;
    await waitFor("every child gone", () => (pids.some(processAlive) ? undefined : true), 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(code).toBe(0);
    expect(existsSync(join(home, "stack.json"))).toBe(false);
  });
});

describe("aide up after its supervisor was killed outright", () => {
  it("services die with the supervisor; the next aide up stops the orphaned nats-server and starts", async () => {
    const home = mkdtempSync(join(tmpdir(), "aide-home-orphan-"));
    const workspace = mkdtempSync(join(tmpdir(), "aide-ws-orphan-"));
    const start = () => {
      const child = spawn(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "up", "--nats-port", "0", "--gateway-port", "0", "--workspace", workspace], {
        env: { ...process.env, AIDE_HOME: home, AIDE_NATS_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString()));
      return { child, output: () => text };
    };
    const readStack = () => JSON.parse(readFileSync(join(home, "stack.json"), "utf8")) as Stack;
    let orphan: number | undefined;
    try {
      const first = start();
      await waitFor("first stack up", () => (first.output().includes("aide is up") ? true : undefined), 90_000);
      const stack = readStack();
      const servicePids = Object.values(stack.services).flatMap((s) => [s.pid!, s.launcher_pid!]);
      orphan = stack.nats_pid;
      first.child.kill("SIGKILL");
      await waitFor("services gone with their supervisor", () => (servicePids.some(processAlive) ? undefined : true), 10_000);
      expect(processAlive(stack.nats_pid!)).toBe(true);

      const second = start();
      await waitFor(
        "second stack up",
        () =>
          second.output().includes("aide is up")
            ? true
            : second.child.exitCode !== null
              ? (() => {
                  throw new Error(second.output());
                })()
              : undefined,
        90_000,
      );
      await waitFor("orphaned nats-server stopped", () => (processAlive(stack.nats_pid!) ? undefined : true), 10_000);
      const exited = new Promise((resolve) => second.child.once("exit", resolve));
      second.child.kill("SIGINT");
      await exited;
    } finally {
      if (orphan && processAlive(orphan)) process.kill(orphan, "SIGKILL");
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  }, 200_000);
});
