import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real loopback HTTP server that behaves like the servers the openai provider talks to:
 * OpenAI-style SSE (llama.cpp server, LM Studio, vLLM, DeepSeek) and Ollama's NDJSON /api/chat.
 * The behaviour is chosen by the request's `model` field; every request is recorded.
 */
export interface RecordedRequest {
  path: string;
  authorization?: string;
  body: any;
}

/** How the server presents itself to discovery and the probe. */
export interface FakeServerOptions {
  /** Model names listed by /api/tags and /v1/models (default none). */
  models?: string[];
  /** Ollama: `<arch>.context_length` in /api/show (the trained window). */
  trainedContext?: number;
  /** Ollama: the server cuts every prompt to this many tokens whatever num_ctx says (the silent cut). */
  ollamaCap?: number;
  /** llama-server: `n_ctx` in /props (the loaded window). */
  llamaServerContext?: number;
}

export interface FakeServer {
  url: string;
  options: FakeServerOptions;
  requests: RecordedRequest[];
  attempts: Map<string, number>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sse(res: ServerResponse, events: unknown[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end("data: [DONE]\n\n");
}

function delta(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] };
}

async function readBody(req: IncomingMessage): Promise<any> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return JSON.parse(text);
}

async function openAi(body: any, res: ServerResponse, server: FakeServer): Promise<void> {
  const attempt = (server.attempts.get(body.model) ?? 0) + 1;
  server.attempts.set(body.model, attempt);
  const usage = { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 };
  switch (body.model) {
    case "plain-model":
      return sse(res, [delta({ role: "assistant", content: "" }), delta({ content: "Hello" }), delta({ content: " world" }), delta({}, "stop"), { choices: [], usage }]);
    case "cached-model":
      // A server with a prompt cache reports how many prompt tokens it reused.
      return sse(res, [delta({ content: "again" }, "stop"), { choices: [], usage: { ...usage, prompt_tokens_details: { cached_tokens: 16 } } }]);
    case "tools-model":
      return sse(res, [
        delta({ role: "assistant", content: "Reading it." }),
        delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read_file", arguments: "" } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'th": "a.txt"}' } }] }),
        delta({ tool_calls: [{ index: 1, id: "call_2", type: "function", function: { name: "list_dir", arguments: '{"path": "."}' } }] }),
        delta({}, "tool_calls"),
        { choices: [], usage },
      ]);
    case "deepseek-reasoner":
      return sse(res, [
        delta({ role: "assistant", reasoning_content: "The user wants " }),
        delta({ reasoning_content: "the file." }),
        delta({ content: attempt === 1 ? "" : "Done: it says hi." }),
        ...(attempt === 1
          ? [delta({ tool_calls: [{ index: 0, id: "call_r", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }] }, "tool_calls")]
          : [delta({}, "stop")]),
        { choices: [], usage },
      ]);
    case "flaky-model":
      if (attempt === 1) {
        res.writeHead(429, { "retry-after": "0", "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { message: "slow down" } }));
      }
      if (attempt === 2) {
        res.writeHead(503, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { message: "loading" } }));
      }
      return sse(res, [delta({ content: "third time lucky" }, "stop"), { choices: [], usage }]);
    case "down-model":
      res.writeHead(503, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: { message: "overloaded" } }));
    case "bad-request-model":
      res.writeHead(400, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: { message: "unknown parameter foo" } }));
    case "slow-model":
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < 50 && !res.destroyed; i++) {
        res.write(`data: ${JSON.stringify(delta({ content: `word${i} ` }))}\n\n`);
        await sleep(100);
      }
      return void res.end("data: [DONE]\n\n");
    case "stalled-model":
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(delta({ content: "thinking" }))}\n\n`);
      await sleep(5000);
      return void res.end("data: [DONE]\n\n");
    case "local.gguf": {
      // Like llama-server: honest prompt counts, and tools come back parsed when they are sent.
      const chars = body.messages.reduce((n: number, m: any) => n + String(m.content).length, 0);
      const honest = { prompt_tokens: Math.ceil(chars / 4) + 4 * body.messages.length, completion_tokens: 3, total_tokens: 0 };
      if (Array.isArray(body.tools) && body.tools.length > 0) {
        return sse(res, [
          delta({ role: "assistant", content: "" }),
          delta({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: body.tools[0].function.name, arguments: '{"path":"notes.txt"}' } }] }),
          delta({}, "tool_calls"),
          { choices: [], usage: honest },
        ]);
      }
      return sse(res, [delta({ role: "assistant", content: "" }), delta({ content: "Once" }), delta({ content: " upon" }), delta({}, "stop"), { choices: [], usage: honest }]);
    }
    case "redirect-model":
      res.writeHead(307, { location: "http://192.0.2.1/v1/chat/completions" });
      return void res.end();
    default:
      res.writeHead(404, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: { message: `model ${body.model} not found` } }));
  }
}

/** Ollama's native API: it cuts a prompt longer than num_ctx to the last num_ctx tokens. */
function ollama(body: any, res: ServerResponse, cap = Number.POSITIVE_INFINITY): void {
  const chars = body.messages.reduce((n: number, m: any) => n + String(m.content).length, 0);
  const promptTokens = Math.min(Math.ceil(chars / 4) + 4 * body.messages.length, body.options?.num_ctx ?? 2048, cap);
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  res.write(JSON.stringify({ model: body.model, message: { role: "assistant", content: "Hi " }, done: false }) + "\n");
  res.write(JSON.stringify({ model: body.model, message: { role: "assistant", content: "there" }, done: false }) + "\n");
  if (body.model === "ollama-tools") {
    res.write(JSON.stringify({ model: body.model, message: { role: "assistant", content: "", tool_calls: [{ function: { name: "read_file", arguments: { path: "b.txt" } } }] }, done: false }) + "\n");
  }
  res.end(JSON.stringify({ model: body.model, message: { role: "assistant", content: "" }, done: true, done_reason: "stop", prompt_eval_count: promptTokens, eval_count: 2 }) + "\n");
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const fake: FakeServer = { url: "", options, requests: [], attempts: new Map(), close: async () => undefined };
  const names = options.models ?? [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method === "GET" && req.url === "/v1/models") return json(res, { object: "list", data: names.map((id) => ({ id, object: "model" })) });
      if (req.method === "GET" && req.url === "/api/tags") return json(res, { models: names.map((name) => ({ name, model: name })) });
      if (req.method === "GET" && req.url === "/props" && options.llamaServerContext !== undefined) return json(res, { default_generation_settings: { n_ctx: options.llamaServerContext } });
      const body = await readBody(req);
      fake.requests.push({ path: req.url ?? "", authorization: req.headers.authorization, body });
      if (req.url === "/api/show" && options.trainedContext !== undefined) return json(res, { model_info: { "general.architecture": "qwen2", "qwen2.context_length": options.trainedContext } });
      if (req.url === "/v1/chat/completions") await openAi(body, res, fake);
      else if (req.url === "/api/chat") ollama(body, res, options.ollamaCap);
      else {
        res.writeHead(404);
        res.end();
      }
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
