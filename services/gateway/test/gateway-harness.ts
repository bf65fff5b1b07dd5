import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { pino } from "pino";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { repoRoot } from "../../../tests/helpers/service-process.js";
import { createGateway, type Gateway, type GatewayOptions } from "../src/gateway.js";
import { startFakeOrchestrator, type FakeOrchestrator } from "./fake-orchestrator.js";

export const panelDir = join(repoRoot, "services", "gateway", "panel");

export interface Harness {
  bus: TestBus;
  tester: NatsConnection;
  orchestrator: FakeOrchestrator;
  gateway: Gateway;
  token: string;
  port: number;
  /** Headers of a well-behaved local client. */
  headers(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

/**
 * A real nats-server, the fake orchestrator (as `tester`), and the gateway in this process with
 * the gateway's real bus user and permissions.
 */
export async function startHarness(options: Partial<GatewayOptions> & { listen?: boolean; approvalPauses?: boolean } = {}): Promise<Harness> {
  const bus = await startTestBus();
  const tester = await bus.connectAs("tester");
  const orchestrator = await startFakeOrchestrator(tester, { approvalPauses: options.approvalPauses });
  const connection = await bus.connectAs("gateway");
  const token = randomBytes(24).toString("base64url");
  const gateway = createGateway({ connection, logger: pino({ level: process.env.AIDE_TEST_LOG ?? "silent" }), token, port: options.listen ? 0 : 4280, panelDir, ...options });
  const port = options.listen ? await gateway.listen() : 4280;
  return {
    bus,
    tester,
    orchestrator,
    gateway,
    token,
    port,
    headers: (extra = {}) => ({ host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, ...extra }),
    async stop() {
      await gateway.close();
      await orchestrator.stop();
      await bus.stop();
    },
  };
}

/** Polls `probe` until it gives a value; `what` may be a function, read only when the wait times out (so it can say what was seen by then). */
export async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string | (() => string), timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * One raw HTTP request on its own socket whose body never finishes arriving (a stalled client):
 * what came back before the server closed the socket, and how it closed.
 */
export function heldUpload(baseUrl: string, token: string, path: string): { socket: Socket; sent: Promise<void>; ended: Promise<{ response: string; error?: string }> } {
  const url = new URL(baseUrl);
  const port = Number(url.port);
  const socket = connect(port, url.hostname);
  let response = "";
  socket.on("data", (chunk: Buffer) => {
    response += chunk.toString();
  });
  const ended = new Promise<{ response: string; error?: string }>((resolve) => {
    socket.once("error", (error: NodeJS.ErrnoException) => resolve({ response, error: error.code ?? error.message }));
    socket.once("close", () => resolve({ response }));
  });
  // The headers and a first part of the body; the rest never comes (a slow or stalled client).
  const sent = new Promise<void>((resolve, reject) => {
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{"workspace":`, (error) =>
      error ? reject(error) : resolve(),
    );
  });
  return { socket, sent, ended };
}
