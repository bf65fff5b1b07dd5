import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { startHarness, type Harness } from "./gateway-harness.js";

/** `POST /api/panel/link` and `GET /?code=`: the one-time login link `aide open` prints. */
describe("the panel's one-time login link", () => {
  let h: Harness;
  let clock = Date.parse("2026-01-01T00:00:00Z");
  let logged = "";
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    h = await startHarness({ now: () => clock, loginCodeTtlMs: 60_000, logger: pino({ level: "trace" }, sink) });
  });
  afterAll(async () => h?.stop());
  const host = () => ({ host: `127.0.0.1:${h.port}` });
  const mint = async (payload: Record<string, unknown> = {}) => {
    const reply = await h.gateway.app.inject({ method: "POST", url: "/api/panel/link", headers: h.headers({ "content-type": "application/json" }), payload });
    expect(reply.statusCode, reply.body).toBe(200);
    return reply.json() as { path: string; expires_at: string };
  };

  it("needs the bearer token to mint a link, and the link holds a code, never the token", async () => {
    const anonymous = await h.gateway.app.inject({ method: "POST", url: "/api/panel/link", headers: { ...host(), "content-type": "application/json" }, payload: {} });
    expect(anonymous.statusCode).toBe(401);
    const link = await mint();
    expect(link.path).toMatch(/^\/\?code=[\w-]{20,}$/);
    expect(link.path).not.toContain(h.token);
    expect(Date.parse(link.expires_at)).toBe(clock + 60_000);
  });

  it("works once: a browser session cookie and a redirect to /, then the same link is refused", async () => {
    const { path } = await mint();
    const first = await h.gateway.app.inject({ method: "GET", url: path, headers: host() });
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe("/");
    const cookie = String(first.headers["set-cookie"]).split(";")[0];
    expect(cookie).toMatch(/^aide_session=/);
    expect(cookie).not.toContain(h.token);
    const panel = await h.gateway.app.inject({ method: "GET", url: "/api/agent/sessions", headers: { ...host(), cookie } });
    expect(panel.statusCode).toBe(200);
    const again = await h.gateway.app.inject({ method: "GET", url: path, headers: host() });
    expect(again.statusCode).toBe(401);
    expect(again.headers["set-cookie"]).toBeUndefined();
  });

  it("expires: a code used after its lifetime is refused", async () => {
    const { path } = await mint();
    clock += 60_001;
    expect((await h.gateway.app.inject({ method: "GET", url: path, headers: host() })).statusCode).toBe(401);
  });

  it("carries the session to open in the fragment, which the browser keeps across the redirect", async () => {
    const { path } = await mint({ session: "s-123" });
    expect(path).toMatch(/^\/\?code=[\w-]+#session=s-123$/);
    expect((await h.gateway.app.inject({ method: "POST", url: "/api/panel/link", headers: h.headers({ "content-type": "application/json" }), payload: { session: "../x" } })).statusCode).toBe(400);
  });

  it("keeps codes and the token out of the request log", async () => {
    const { path } = await mint();
    await h.gateway.app.inject({ method: "GET", url: path, headers: host() });
    const code = path.slice("/?code=".length);
    expect(logged).toContain('"path":"/"');
    expect(logged).not.toContain(code);
    expect(logged).not.toContain(h.token);
  });
});
