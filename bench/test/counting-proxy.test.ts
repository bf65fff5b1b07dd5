import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { countsBetween, startCountingProxy, usageOf, type CountingProxy } from "../lib/counting-proxy.js";

/** A real HTTP server standing in for llama-server's OpenAI routes: JSON, streamed, an error, and a reply that never ends. */
async function upstream(): Promise<{ server: Server; url: string; closedEarly: () => number }> {
  let closedEarly = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const request = body !== "" ? (JSON.parse(body) as { stream?: boolean; hang?: boolean; fail?: boolean }) : {};
      if (req.url === "/v1/models") return void res.writeHead(200, { "content-type": "application/json" }).end('{"data":[{"id":"m"}]}');
      if (request.fail) return void res.writeHead(500).end('{"error":"no"}');
      if (request.hang) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write('data: {"choices":[{"delta":{"content":"a"}}]}\n\n');
        res.on("close", () => (closedEarly += 1));
        return;
      }
      if (request.stream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n');
        res.end('data: {"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":4}}\n\ndata: [DONE]\n\n');
        return;
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ choices: [{ message: { content: "ok" } }], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closedEarly: () => closedEarly };
}

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("counting-proxy", () => {
  let proxy: CountingProxy | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await proxy?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("forwards each agent's route unchanged and counts its chat calls and tokens, streamed or not", async () => {
    const up = await upstream();
    server = up.server;
    proxy = await startCountingProxy(up.url);
    const before = proxy.counts("aider");
    const plain = await post(`${proxy.url}/aider/v1/chat/completions`, { messages: [] });
    expect(((await plain.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toBe("ok");
    const streamed = await (await post(`${proxy.url}/aider/v1/chat/completions`, { stream: true })).text();
    expect(streamed).toContain("[DONE]");
    expect((await post(`${proxy.url}/aider/v1/chat/completions`, { fail: true })).status).toBe(500);
    // Not a chat call: forwarded, not counted.
    expect((await fetch(`${proxy.url}/aider/v1/models`)).status).toBe(200);
    await post(`${proxy.url}/mini-swe-agent/v1/chat/completions`, {});
    expect(countsBetween(before, proxy.counts("aider"))).toEqual({ calls: 3, failed: 1, prompt_tokens: 42, completion_tokens: 7, with_usage: 2 });
    expect(proxy.counts("mini-swe-agent").calls).toBe(1);
    expect(proxy.counts("aide").calls).toBe(0);
  });

  it("closes the upstream request when the agent hangs up (killed at its budget)", async () => {
    const up = await upstream();
    server = up.server;
    proxy = await startCountingProxy(up.url);
    const abort = new AbortController();
    const reply = await fetch(`${proxy.url}/aide/v1/chat/completions`, { method: "POST", body: JSON.stringify({ hang: true }), signal: abort.signal });
    expect(reply.status).toBe(200);
    abort.abort();
    const deadline = Date.now() + 5000;
    while (up.closedEarly() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(up.closedEarly()).toBe(1);
    expect(proxy.counts("aide").calls).toBe(1);
  });

  it("reads the last usage block of a reply", () => {
    expect(usageOf('{"usage":{"prompt_tokens":1,"completion_tokens":2}}\n{"usage":{"prompt_tokens":5,"completion_tokens":6}}')).toEqual({ prompt_tokens: 5, completion_tokens: 6 });
    expect(usageOf('{"choices":[]}')).toBeUndefined();
  });
});
