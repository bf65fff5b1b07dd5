import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Msg, NatsConnection } from "nats";
import WebSocket from "ws";
import { eventStreamName } from "@aide/contracts";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess } from "../../../tests/helpers/service-process.js";
import { heldUpload, until } from "./gateway-harness.js";

const token = "0123456789abcdef0123456789abcdef";

/**
 * Issue 14 item 5: SIGTERM to the gateway process with 20 REST requests in flight (each waiting
 * on a status call that a test responder on the bus holds). Every request gets a response: the
 * ones the responder answers within the grace get their answer, the rest 503 UNAVAILABLE
 * (shutting down) in the error envelope; the process exits 0.
 */
describe("graceful shutdown of the gateway process", () => {
  let bus: TestBus;
  let responder: NatsConnection;
  const dir = mkdtempSync(join(tmpdir(), "aide-gw-stop-"));
  const held: Msg[] = [];

  beforeAll(async () => {
    bus = await startTestBus();
    responder = await bus.connectAs("tester");
    responder.subscribe("agent.cmd.status", {
      callback: (_error, message) => {
        // The WebSocket's own lookup of pending approvals is held too, but not counted.
        if (!new TextDecoder().decode(message.data).includes("wssession")) held.push(message);
      },
    });
    await responder.flush();
    const manager = await responder.jetstreamManager();
    await manager.streams.add({ name: eventStreamName, subjects: ["agent.evt.>"] });
  });
  afterAll(async () => {
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers all 20 in-flight requests (finished or 503 UNAVAILABLE), closes the WebSocket with 1001 and a reason, and exits 0", async () => {
    const tokenFile = join(dir, "gateway.token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const gateway = await startServiceProcess(bus, "gateway", {
      env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_SHUTDOWN_GRACE_MS: "1500", AIDE_LOG_LEVEL: "info" },
      pinger: responder,
      readyTimeoutMs: 60_000,
    });
    const port = await until(() => /"port":(\d+)/.exec(gateway.logs())?.[1], "the port in the log");
    const exited = new Promise<number | null>((resolve) => gateway.child.once("exit", (code) => resolve(code)));
    const responses = Array.from({ length: 20 }, (_, index) =>
      fetch(`http://127.0.0.1:${port}/api/agent/status?id=session${index}`, { headers: { authorization: `Bearer ${token}` } })
        .then(async (response) => ({ status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as { error?: { code: string; message: string } } }))
        .catch((error: Error) => ({ status: 0, retryAfter: null, body: { error: { code: "NO_RESPONSE", message: error.message } } })),
    );
    await until(() => (held.length >= 20 ? true : undefined), "20 status calls held on the bus", 60_000);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/events?session=wssession&since=0`, { headers: { authorization: `Bearer ${token}` } });
    const closedSocket = new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });

    gateway.child.kill("SIGTERM");
    // Within the grace the orchestrator (here: the test) answers five of them.
    for (const message of held.slice(0, 5)) message.respond(JSON.stringify({ ok: false, error: { code: "SESSION_NOT_FOUND", message: "No session with id x" } }));
    const results = await Promise.all(responses);
    const closing = await closedSocket;
    const code = await exited;

    expect(results.filter((result) => result.status === 0)).toEqual([]);
    expect(results.filter((result) => result.status === 404).length).toBe(5);
    const refused = results.filter((result) => result.status === 503);
    expect(refused.length).toBe(15);
    for (const result of refused) {
      expect(result.body.error?.code).toBe("UNAVAILABLE");
      expect(result.body.error?.message).toMatch(/shutting down/);
      expect(result.retryAfter).toMatch(/^\d+$/);
    }
    expect(closing.code).toBe(1001);
    expect(closing.reason).toMatch(/shutting down/);
    expect(code).toBe(0);
    expect(gateway.logs()).toContain("requests outlived the shutdown grace");
  }, 120_000);
});

/**
 * Issue 26: 20 REST requests held while the gateway gets SIGTERM all ended ECONNRESET. Here each is
 * held by its client (the body is still arriving, so no bus call exists to abort): each must still
 * get a response — a 503 with Retry-After — before the gateway closes its socket.
 */
describe("graceful shutdown of the gateway process: requests whose body is still arriving", () => {
  let bus: TestBus;
  let tester: NatsConnection;
  const dir = mkdtempSync(join(tmpdir(), "aide-gw-stop-upload-"));

  beforeAll(async () => {
    bus = await startTestBus();
    tester = await bus.connectAs("tester");
  });
  afterAll(async () => {
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers all 20 with 503 UNAVAILABLE and a Retry-After before closing, and exits 0", async () => {
    const tokenFile = join(dir, "gateway.token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const gateway = await startServiceProcess(bus, "gateway", {
      env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_SHUTDOWN_GRACE_MS: "1500", AIDE_LOG_LEVEL: "debug" },
      pinger: tester,
      readyTimeoutMs: 60_000,
    });
    const port = Number(await until(() => /"port":(\d+)/.exec(gateway.logs())?.[1], "the port in the log"));
    const exited = new Promise<number | null>((resolve) => gateway.child.once("exit", (code) => resolve(code)));
    const uploads = Array.from({ length: 20 }, () => heldUpload(`http://127.0.0.1:${port}`, token, "/api/agent/start"));
    await Promise.all(uploads.map((upload) => upload.sent));
    // A request sent after all 20 and answered: the gateway has read what came before it.
    expect((await fetch(`http://127.0.0.1:${port}/api/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    gateway.child.kill("SIGTERM");
    const results = await Promise.all(uploads.map((upload) => upload.ended));
    const code = await exited;

    expect(
      results.filter((result) => !result.response.startsWith("HTTP/1.1 ")),
      JSON.stringify(results.slice(0, 2)),
    ).toEqual([]);
    for (const result of results) {
      expect(result.response).toMatch(/^HTTP\/1\.1 503 /);
      expect(result.response).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(result.response).toMatch(/"code":"UNAVAILABLE"/);
    }
    expect(code).toBe(0);
  }, 120_000);
});

/** One raw connection: resolves when it is connected; `ended` tells what came back and how it closed. */
function rawConnection(port: number): { socket: Socket; connected: Promise<void>; ended: Promise<{ response: string; error?: string }> } {
  const socket = connect(port, "127.0.0.1");
  let response = "";
  socket.on("data", (chunk: Buffer) => {
    response += chunk.toString();
  });
  const ended = new Promise<{ response: string; error?: string }>((resolve) => {
    socket.once("error", (error: NodeJS.ErrnoException) => resolve({ response, error: error.code ?? error.message }));
    socket.once("close", () => resolve({ response }));
  });
  const connected = new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  return { socket, connected, ended };
}

/**
 * Connections the gateway accepted whose request it has not parsed yet when SIGTERM comes (the
 * request written just before the signal, or just after it) were reset: closing the listener
 * and destroying every connection with no parsed request dropped them. Each gets an HTTP answer
 * — its own, or 503 UNAVAILABLE with a Retry-After — and none is reset.
 */
describe("graceful shutdown of the gateway process: connections accepted but not yet parsed", () => {
  let bus: TestBus;
  let responder: NatsConnection;
  const dir = mkdtempSync(join(tmpdir(), "aide-gw-stop-raw-"));

  beforeAll(async () => {
    bus = await startTestBus();
    responder = await bus.connectAs("tester");
    responder.subscribe("agent.cmd.sessions", {
      callback: (_error, message) => message.respond(JSON.stringify({ ok: true, result: { sessions: [] } })),
    });
    await responder.flush();
  });
  afterAll(async () => {
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers every accepted connection (10 raw, 20 fetches before SIGTERM, 5 written 100 ms after it) and resets none", async () => {
    const tokenFile = join(dir, "gateway.token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const gateway = await startServiceProcess(bus, "gateway", {
      env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_SHUTDOWN_GRACE_MS: "1500", AIDE_LOG_LEVEL: "info" },
      pinger: responder,
      readyTimeoutMs: 60_000,
    });
    const port = Number(await until(() => /"port":(\d+)/.exec(gateway.logs())?.[1], "the port in the log"));
    const exited = new Promise<number | null>((resolve) => gateway.child.once("exit", (code) => resolve(code)));
    const request = `GET /api/agent/sessions?limit=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    const before = Array.from({ length: 10 }, () => rawConnection(port));
    const after = Array.from({ length: 5 }, () => rawConnection(port));
    await Promise.all([...before, ...after].map((connection) => connection.connected));
    // Accepted by the gateway (a request on another connection was answered after they connected).
    expect((await fetch(`http://127.0.0.1:${port}/api/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    const fetches = Array.from({ length: 20 }, () =>
      fetch(`http://127.0.0.1:${port}/api/agent/sessions?limit=1`, { headers: { authorization: `Bearer ${token}` } })
        .then(async (response) => ({ status: response.status, retryAfter: response.headers.get("retry-after"), text: await response.text() }))
        .catch((error: Error & { cause?: { code?: string } }) => ({ status: 0, retryAfter: null, text: error.cause?.code ?? error.message })),
    );
    for (const connection of before) connection.socket.write(request);
    gateway.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const connection of after) connection.socket.write(request);

    const raw = await Promise.all([...before, ...after].map((connection) => connection.ended));
    const fetched = await Promise.all(fetches);
    const code = await exited;

    expect(
      raw.filter((result) => !/^HTTP\/1\.1 (200|503) /.test(result.response)),
      JSON.stringify(raw),
    ).toEqual([]);
    for (const result of raw.filter((each) => each.response.startsWith("HTTP/1.1 503"))) {
      expect(result.response).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(result.response).toMatch(/"code":"UNAVAILABLE"/);
    }
    expect(
      fetched.filter((result) => result.status !== 200 && result.status !== 503),
      JSON.stringify(fetched),
    ).toEqual([]);
    for (const result of fetched.filter((each) => each.status === 503)) expect(result.retryAfter).toMatch(/^\d+$/);
    expect(code).toBe(0);
  }, 120_000);
});
