import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findNatsServer, freePort } from "@aide/runtime";
import { repoRoot } from "../helpers/service-process.js";
import { waitForPort } from "../helpers/wait-for-port.js";

/** Issue 13 item 6: a taken port is reported at once, by port and owner, before anything starts. */
function startAide(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; output: string }> } {
  const child = spawn(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_MODEL_DISCOVERY: "off", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  const done = new Promise<{ code: number | null; signal: string | null; output: string }>((resolve) =>
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    }),
  );
  return { child, done };
}

function listen(server: Server | ReturnType<typeof createTcpServer>, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

describe("aide up with a port held by something else", () => {
  let home: string;
  let workspace: string;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "aide-home-"));
    workspace = mkdtempSync(join(tmpdir(), "aide-ws-"));
  });

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  const noServiceStarted = () => {
    expect(existsSync(join(home, "stack.json"))).toBe(false);
    expect(existsSync(join(home, "logs", "tools.log"))).toBe(false);
  };

  it("a plain nats-server on the NATS port: PORT_IN_USE naming its pid and command, and the flag", async () => {
    const port = await freePort();
    const foreign = spawn(findNatsServer()!, ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    try {
      await waitForPort(port);
      const { code, output } = await startAide(["up", "--nats-port", String(port), "--gateway-port", "0", "--workspace", workspace], { AIDE_HOME: home }).done;
      expect(code).toBe(1);
      expect(output).toContain("PORT_IN_USE");
      expect(output).toContain(`Port ${port} (NATS)`);
      expect(output).toContain(`pid ${foreign.pid} (`);
      expect(output).toContain("nats-server");
      expect(output).toContain("--nats-port");
      noServiceStarted();
    } finally {
      foreign.kill("SIGKILL");
    }
  });

  it("an HTTP server on the NATS port: PORT_IN_USE naming this test process as the owner", async () => {
    const port = await freePort();
    const http = createHttpServer((_request, response) => response.end("hello"));
    await listen(http, port);
    try {
      const { code, output } = await startAide(["up", "--nats-port", String(port), "--gateway-port", "0", "--workspace", workspace], { AIDE_HOME: home }).done;
      expect(code).toBe(1);
      expect(output).toContain(`Port ${port} (NATS) is in use by pid ${process.pid} (`);
      expect(output).toContain("--nats-port");
      noServiceStarted();
    } finally {
      http.close();
    }
  });

  it("something on the gateway port: PORT_IN_USE with --gateway-port, before nats-server starts", async () => {
    const port = await freePort();
    const http = createHttpServer((_request, response) => response.end("hello"));
    await listen(http, port);
    try {
      const { code, output } = await startAide(["up", "--nats-port", "0", "--gateway-port", String(port), "--workspace", workspace], { AIDE_HOME: home }).done;
      expect(code).toBe(1);
      expect(output).toContain(`Port ${port} (gateway) is in use by pid ${process.pid} (`);
      expect(output).toContain("--gateway-port");
      expect(existsSync(join(home, "run", "nats-server.log"))).toBe(false);
      noServiceStarted();
    } finally {
      http.close();
    }
  });

  it("SIGTERM while the start waits on a bus that never answers: stops and exits with 143", async () => {
    // An external "NATS" that accepts connections and never speaks: the supervisor's connect waits.
    const sockets: Socket[] = [];
    let connected!: () => void;
    const reached = new Promise<void>((resolve) => (connected = resolve));
    const silent = createTcpServer((socket) => {
      sockets.push(socket);
      connected();
    });
    const port = await freePort();
    await listen(silent, port);
    const credentialsDir = join(home, "external-creds");
    mkdirSync(credentialsDir, { recursive: true });
    writeFileSync(join(credentialsDir, "supervisor.json"), JSON.stringify({ user: "supervisor", password: "x", inbox_prefix: "_INBOX_supervisor" }));
    try {
      const aide = startAide(["up", "--gateway-port", "0", "--workspace", workspace], {
        AIDE_HOME: home,
        AIDE_NATS_URL: `nats://127.0.0.1:${port}`,
        AIDE_NATS_CREDS_DIR: credentialsDir,
      });
      await reached;
      aide.child.kill("SIGTERM");
      const { code, output } = await aide.done;
      expect(output).toContain("SIGTERM during the start");
      expect(code).toBe(143);
      expect(existsSync(join(home, "stack.json"))).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
