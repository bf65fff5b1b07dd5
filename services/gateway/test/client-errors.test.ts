import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InstructionsQuerySchema } from "@aide/contracts";
import { validate } from "../src/validate.js";
import { startHarness, type Harness } from "./gateway-harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ listen: true, bodyLimitBytes: 4096 });
});
afterAll(async () => {
  await h?.stop();
});

/** One request over a real connection, any method, any body: status, headers and parsed body. */
function send(
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port: h.port, method, path, headers: { ...h.headers(), ...(options.headers ?? {}) } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on("end", () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    request.on("error", reject);
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

const json = { "content-type": "application/json" };

/** Generated input the API fuzz found answered wrongly; each answer here is the one a client can act on. */
describe("the gateway's answers to requests Fastify or the body parser refuse", () => {
  it("a QUERY request without a Content-Type is a 4xx in the envelope, on any path (was 500 INTERNAL)", async () => {
    for (const path of ["/api/agent/sessions", "/api/health", "/api/nothing-here", "/"]) {
      const response = await send("QUERY", path);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(response.body.error.code, path).not.toBe("INTERNAL");
    }
  });

  it("a method a path is not declared under is 405 METHOD_NOT_ALLOWED with an Allow header (was 404)", async () => {
    const deleted = await send("DELETE", "/api/agent/sessions");
    expect(deleted.status).toBe(405);
    expect(deleted.body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect(String(deleted.headers.allow).split(", ")).toEqual(expect.arrayContaining(["GET", "HEAD"]));
    expect(String(deleted.headers.allow)).not.toContain("DELETE");
    const got = await send("GET", "/api/agent/start");
    expect(got.status).toBe(405);
    expect(got.headers.allow).toBe("POST");
    const queried = await send("QUERY", "/api/agent/start", { headers: json, body: "{}" });
    expect(queried.status).toBe(405);
    expect(queried.headers.allow).toBe("POST");
    // A POST with no JSON Content-Type on a GET-only path: 405 for the method, not 415 for the body.
    const posted = await send("POST", "/api/health");
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toContain("GET");
    // A path no method serves stays 404.
    expect((await send("DELETE", "/api/nothing-here")).status).toBe(404);
  });

  it("the 413 message names the limit in bytes (was the template's words)", async () => {
    const body = JSON.stringify({ task: "x".repeat(10_000), workspace: "/tmp/ws" });
    const sized = await send("POST", "/api/agent/start", { headers: { ...json, "content-length": String(Buffer.byteLength(body)) }, body });
    expect(sized.status).toBe(413);
    expect(sized.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(sized.body.error.message).toBe(`The message is ${Buffer.byteLength(body)} bytes; the limit is 4096 bytes`);
    // Chunked, with no Content-Length: the size is not known, only that it passed the limit.
    const chunked = await send("POST", "/api/agent/start", { headers: json, body });
    expect(chunked.status).toBe(413);
    expect(chunked.body.error.message).toBe("The message is more than 4096 bytes; the limit is 4096 bytes");
  });

  it("a body `null` is 400 VALIDATION, not read as {} (POST /api/panel/link minted a login code)", async () => {
    const response = await send("POST", "/api/panel/link", { headers: json, body: "null" });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("VALIDATION");
    expect(response.body.path).toBeUndefined();
    // An empty object is still a valid request for a link.
    expect((await send("POST", "/api/panel/link", { headers: json, body: "{}" })).status).toBe(200);
  });

  it("a body with a __proto__ key is a VALIDATION error naming the key, not 'not valid JSON'", async () => {
    for (const body of ['{"__proto__":{"admin":true}}', '{"session":"s","nested":{"__proto__":1}}', '{"constructor":{"prototype":{}}}']) {
      const response = await send("POST", "/api/panel/link", { headers: json, body });
      expect(response.status, body).toBe(400);
      expect(response.body.error.code, body).toBe("VALIDATION");
      expect(response.body.error.message, body).toMatch(/__proto__|constructor\.prototype/);
      expect(response.body.error.message, body).not.toMatch(/not valid JSON/);
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    // Text that is not JSON is still BAD_JSON.
    const bad = await send("POST", "/api/panel/link", { headers: json, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("BAD_JSON");
  });

  it("an empty query parameter is 400 VALIDATION, not read as 0 (GET /api/agent/sessions?offset= answered 200)", async () => {
    for (const query of ["offset=", "limit=", "query=", "limit=1&workspace="]) {
      const response = await send("GET", `/api/agent/sessions?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code, query).toBe("VALIDATION");
    }
    expect((await send("GET", "/api/agent/sessions?offset=0&limit=1")).status).toBe(200);
    // An empty string parameter the schema allows stays allowed (the third run refused ?folder=).
    expect(validate(InstructionsQuerySchema, { workspace: "/w", folder: "" }, "query")).toEqual({ workspace: "/w", folder: "" });
  });
});
