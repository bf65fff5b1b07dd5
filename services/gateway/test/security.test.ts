import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startHarness, type Harness } from "./gateway-harness.js";

let h: Harness;
let session: string;
const json = { "content-type": "application/json" };

beforeAll(async () => {
  h = await startHarness({ listen: true, rateLimit: { max: 40, windowMs: 60_000 } });
  const started = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers(json), payload: { task: "t", workspace: "/tmp/ws" } });
  session = started.json().session;
});
afterAll(async () => h?.stop());

const status = (headers: Record<string, string>, url = `/api/agent/status?id=${session}`) => h.gateway.app.inject({ method: "GET", url, headers });

/** A raw upgrade request: returns the HTTP status of a refusal, or 101. */
function upgrade(headers: Record<string, string>, path = `/api/events?session=${session}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port: h.port,
      path,
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", ...headers },
    });
    req.on("upgrade", (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: "" });
    });
    req.on("response", (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("REST security", () => {
  it("no token, wrong token, token in the query: 401 with the envelope", async () => {
    const host = { host: `127.0.0.1:${h.port}` };
    for (const response of [
      await status(host),
      await status({ ...host, authorization: "Bearer wrong-token-0123456789" }),
      await status({ ...host, authorization: h.token }),
      await status(host, `/api/agent/status?id=${session}&token=${h.token}`),
      await status(h.headers(), `/api/agent/status?id=${session}&access_token=${h.token}`),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: { code: "UNAUTHORIZED", message: "A valid bearer token is required" } });
    }
    expect((await status(h.headers())).statusCode).toBe(200);
  });

  it("every route needs the token, including health and the OpenAPI document", async () => {
    for (const url of ["/api/health", "/api/openapi.json", "/api/models", "/api/agent/sessions", "/panel/app.js", "/api/nothing"]) {
      expect((await status({ host: `127.0.0.1:${h.port}` }, url)).statusCode).toBe(401);
    }
  });

  it("Origin https://evil.example: 403; the gateway's own origin is fine", async () => {
    const evil = await status(h.headers({ origin: "https://evil.example" }));
    expect(evil.statusCode).toBe(403);
    expect(evil.json().error.code).toBe("FORBIDDEN_ORIGIN");
    expect((await status(h.headers({ origin: "null" }))).statusCode).toBe(403);
    expect((await status(h.headers({ origin: `http://localhost:${h.port}` }))).statusCode).toBe(200);
  });

  it("Host attacker.example (DNS rebinding): 403; another port: 403", async () => {
    const rebinding = await status(h.headers({ host: "attacker.example" }));
    expect(rebinding.statusCode).toBe(403);
    expect(rebinding.json().error.code).toBe("FORBIDDEN_HOST");
    expect((await status(h.headers({ host: `attacker.example:${h.port}` }))).statusCode).toBe(403);
    expect((await status(h.headers({ host: "127.0.0.1:1" }))).statusCode).toBe(403);
    expect((await status(h.headers({ host: `[::1]:${h.port}` }))).statusCode).toBe(200);
  });

  it("a text/plain POST (a 'simple' CSRF request): 415", async () => {
    const response = await h.gateway.app.inject({ method: "POST", url: "/api/agent/abort", headers: h.headers({ "content-type": "text/plain" }), payload: JSON.stringify({ session }) });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const form = await h.gateway.app.inject({ method: "POST", url: "/api/agent/abort", headers: h.headers({ "content-type": "application/x-www-form-urlencoded" }), payload: "session=x" });
    expect(form.statusCode).toBe(415);
    expect(h.orchestrator.sessions.get(session)?.state).not.toBe("aborted");
  });

  it("a 2 MB body: 413", async () => {
    const response = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers(json), payload: JSON.stringify({ task: "x".repeat(2 * 1024 * 1024), workspace: "/w" }) });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("security headers and the strict CSP on every response", async () => {
    const response = await status(h.headers());
    expect(response.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(response.headers["content-security-policy"]).toContain("img-src 'self'");
    expect(response.headers["x-frame-options"]).toBe("DENY");
    expect(response.headers["referrer-policy"]).toBe("no-referrer");
  });

  it("the login link sets an HttpOnly SameSite=Strict cookie and redirects; the cookie then works", async () => {
    const host = { host: `127.0.0.1:${h.port}` };
    expect((await h.gateway.app.inject({ method: "GET", url: "/", headers: host })).statusCode).toBe(401);
    expect((await h.gateway.app.inject({ method: "GET", url: "/?token=wrong", headers: host })).statusCode).toBe(401);
    const login = await h.gateway.app.inject({ method: "GET", url: `/?token=${h.token}`, headers: host });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe("/");
    const cookie = String(login.headers["set-cookie"]);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(h.token);
    const pair = cookie.split(";")[0];
    expect((await h.gateway.app.inject({ method: "GET", url: `/api/agent/status?id=${session}`, headers: { ...host, cookie: pair } })).statusCode).toBe(200);
    expect((await h.gateway.app.inject({ method: "GET", url: `/api/agent/status?id=${session}`, headers: { ...host, cookie: "aide_session=forged" } })).statusCode).toBe(401);
    const evilLogin = await h.gateway.app.inject({ method: "GET", url: `/?token=${h.token}`, headers: { ...host, origin: "https://evil.example" } });
    expect(evilLogin.statusCode).toBe(403);
  });

  it("a session's address /s/<id> without a cookie answers the login note (HTML 401), never JSON; Host and Origin are still checked", async () => {
    const host = { host: `127.0.0.1:${h.port}` };
    const bare = await h.gateway.app.inject({ method: "GET", url: `/s/${session}`, headers: host });
    expect(bare.statusCode).toBe(401);
    expect(bare.headers["content-type"]).toContain("text/html");
    expect(bare.body).toContain("aide open");
    // A token in its query is no login: only `/` redeems one.
    const withToken = await h.gateway.app.inject({ method: "GET", url: `/s/${session}?token=${h.token}`, headers: host });
    expect(withToken.statusCode).toBe(401);
    expect(withToken.headers["set-cookie"]).toBeUndefined();
    expect((await h.gateway.app.inject({ method: "GET", url: `/s/${session}`, headers: { host: "evil.example" } })).statusCode).toBe(403);
    expect((await h.gateway.app.inject({ method: "GET", url: `/s/${session}`, headers: { ...host, origin: "https://evil.example" } })).statusCode).toBe(403);
    // Deeper paths are not pages: the usual credential check.
    const deeper = await h.gateway.app.inject({ method: "GET", url: `/s/${session}/x`, headers: host });
    expect(deeper.statusCode).toBe(401);
    expect(deeper.json().error.code).toBe("UNAUTHORIZED");
    const login = await h.gateway.app.inject({ method: "GET", url: `/?token=${h.token}`, headers: host });
    const cookie = String(login.headers["set-cookie"]).split(";")[0];
    const page = await h.gateway.app.inject({ method: "GET", url: `/s/${session}`, headers: { ...host, cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
  });
});

describe("WebSocket upgrade security (checked before the handshake)", () => {
  const base = () => ({ host: `127.0.0.1:${h.port}` });
  it("no token, wrong token, token in the query: 401, no handshake", async () => {
    expect((await upgrade(base())).status).toBe(401);
    expect((await upgrade({ ...base(), authorization: "Bearer nope-nope-nope-nope" })).status).toBe(401);
    const query = await upgrade(base(), `/api/events?session=${session}&token=${h.token}`);
    expect(query.status).toBe(401);
    expect(JSON.parse(query.body).error.code).toBe("UNAUTHORIZED");
  });
  it("evil Origin and attacker Host: 403", async () => {
    expect((await upgrade({ ...h.headers(), origin: "https://evil.example" })).status).toBe(403);
    expect((await upgrade({ ...h.headers(), host: "attacker.example" })).status).toBe(403);
  });
  it("bad query: 400; the right headers: 101", async () => {
    expect((await upgrade(h.headers(), "/api/events?session=a.b")).status).toBe(400);
    expect((await upgrade(h.headers(), "/api/nope")).status).toBe(404);
    expect((await upgrade(h.headers())).status).toBe(101);
  });
  it("past the socket limit an upgrade is refused with 503 BUSY", async () => {
    const { startHarness: start } = await import("./gateway-harness.js");
    const small = await start({ listen: true, wsMaxClients: 1 });
    try {
      const started = await small.gateway.app.inject({
        method: "POST",
        url: "/api/agent/start",
        headers: small.headers({ "content-type": "application/json" }),
        payload: { task: "t", workspace: "/w" },
      });
      const id = started.json().session;
      const first = new WebSocket(`ws://127.0.0.1:${small.port}/api/events?session=${id}`, { headers: { authorization: `Bearer ${small.token}` } });
      await new Promise((resolve, reject) => {
        first.once("open", resolve);
        first.once("error", reject);
      });
      const second = new WebSocket(`ws://127.0.0.1:${small.port}/api/events?session=${id}`, { headers: { authorization: `Bearer ${small.token}` } });
      const status = await new Promise<number>((resolve) => second.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0)));
      expect(status).toBe(503);
      first.close();
    } finally {
      await small.stop();
    }
  });

  it("a 10 MB frame from the client closes the socket (1009)", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${h.port}/api/events?session=${session}`, { headers: { authorization: `Bearer ${h.token}` } });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(Buffer.alloc(10 * 1024 * 1024, 97));
    expect(await closed).toBe(1009);
  });
});

describe("rate limit", () => {
  it("failed login-link attempts are limited (429); the right token still logs in", async () => {
    const host = { host: `127.0.0.1:${h.port}` };
    const statuses: number[] = [];
    for (let index = 0; index < 30; index += 1) statuses.push((await h.gateway.app.inject({ method: "GET", url: `/?token=guess${index}`, headers: host })).statusCode);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses).toContain(429);
    expect((await h.gateway.app.inject({ method: "GET", url: `/?token=${h.token}`, headers: host })).statusCode).toBe(303);
  });

  it("a flood with one token gets 429 with Retry-After; another credential is not throttled by it", async () => {
    let limited = 0;
    let retryAfter: string | undefined;
    for (let index = 0; index < 80; index += 1) {
      const response = await status(h.headers(), "/api/agent/sessions");
      if (response.statusCode === 429) {
        limited += 1;
        retryAfter = String(response.headers["retry-after"]);
        expect(response.json().error.code).toBe("RATE_LIMITED");
      }
    }
    expect(limited).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    const login = await h.gateway.app.inject({ method: "GET", url: `/?token=${h.token}`, headers: { host: `127.0.0.1:${h.port}` } });
    const cookie = String(login.headers["set-cookie"]).split(";")[0];
    expect((await status({ host: `127.0.0.1:${h.port}`, cookie }, "/api/agent/sessions")).statusCode).toBe(200);
  });
});
