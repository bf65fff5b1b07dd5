import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { modelDeltaSubject, ModelChatReplySchema, ModelListReplySchema, type ModelChatResult } from "@aide/contracts";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { startFakeServer, type FakeServer } from "./fake-openai-server.js";
import { freePort } from "@aide/runtime";

const SECRET = "sk-test-sekrit-4242";

describe("openai provider against a real loopback HTTP server (real bus, real process)", () => {
  let bus: TestBus;
  let client: NatsConnection;
  let service: ServiceProcess;
  let fake: FakeServer;
  let dir: string;
  let closedPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "aide-model-openai-"));
    fake = await startFakeServer();
    closedPort = await freePort();
    const v1 = `${fake.url}/v1`;
    const spec = (id: string, model: string, extra: Record<string, unknown> = {}) => ({ id, provider: "openai", baseUrl: v1, model, retryBaseMs: 10, ...extra });
    writeFileSync(join(dir, "loose.key"), "nope\n", { mode: 0o644 });
    writeFileSync(
      join(dir, "models.json"),
      JSON.stringify({
        default: "plain",
        models: [
          spec("plain", "plain-model", { apiKeyEnv: "TEST_MODEL_KEY" }),
          spec("tools", "tools-model", { nativeTools: true }),
          spec("cached", "cached-model"),
          spec("deepseek", "deepseek-reasoner", { nativeTools: true, thinking: true, reasoningEffort: "max", keepReasoning: true, flavor: "deepseek" }),
          spec("flaky", "flaky-model"),
          spec("down", "down-model", { maxRetries: 2 }),
          spec("bad-request", "bad-request-model"),
          spec("slow", "slow-model"),
          spec("stalled", "stalled-model", { timeoutMs: 400, maxRetries: 0 }),
          spec("redirect", "redirect-model", { maxRetries: 0 }),
          spec("ollama", "qwen-coder", { flavor: "ollama", contextBudget: 512 }),
          spec("ollama-tools", "ollama-tools", { flavor: "ollama", nativeTools: true, contextBudget: 4096 }),
          spec("loose-key", "plain-model", { apiKeyFile: join(dir, "loose.key") }),
          { id: "remote", provider: "openai", baseUrl: "http://192.0.2.1/v1", model: "remote-model" },
          { id: "nobody-home", provider: "openai", baseUrl: `http://127.0.0.1:${closedPort}/v1`, model: "m", maxRetries: 0 },
        ],
      }),
    );
    bus = await startTestBus();
    client = await bus.connectAs("orchestrator");
    service = await startServiceProcess(bus, "model", { env: { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: dir, TEST_MODEL_KEY: SECRET } });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    await fake?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function chat(model: string, extra: Record<string, unknown> = {}): Promise<ModelChatResult> {
    const raw = await requestJson(
      client,
      "agent.model.chat",
      { request_id: `${model}-${Math.random().toString(36).slice(2, 8)}`, session: "s", model, messages: [{ role: "user", content: "hi" }], ...extra },
      20_000,
    );
    const reply = ModelChatReplySchema.parse(raw);
    if (!reply.ok) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply.result;
  }
  async function chatError(model: string, extra: Record<string, unknown> = {}): Promise<{ code: string; message: string }> {
    const raw = await requestJson(
      client,
      "agent.model.chat",
      { request_id: `e-${Math.random().toString(36).slice(2, 8)}`, session: "s", model, messages: [{ role: "user", content: "hi" }], ...extra },
      20_000,
    );
    expect(raw.ok).toBe(false);
    return raw.error;
  }

  it("streams SSE deltas, reports usage, and sends the API key from the environment without logging it", async () => {
    const deltas: string[] = [];
    const sub = client.subscribe(modelDeltaSubject("plain-1"), { callback: (_e, m) => deltas.push(JSON.parse(m.string()).text) });
    await client.flush();
    const raw = await requestJson(client, "agent.model.chat", { request_id: "plain-1", session: "s", model: "plain", messages: [{ role: "user", content: "hi" }] });
    sub.unsubscribe();
    expect(raw.ok).toBe(true);
    expect(raw.result).toMatchObject({ text: "Hello world", finish_reason: "stop", usage: { prompt_tokens: 20, completion_tokens: 3 } });
    expect(deltas).toEqual(["Hello", " world"]);
    const request = fake.requests.find((r) => r.body.model === "plain-model")!;
    expect(request.authorization).toBe(`Bearer ${SECRET}`);
    expect(request.body.stream).toBe(true);
    expect(service.logs()).not.toContain(SECRET);
  });

  it("reports the prompt tokens a server took from its cache as the ones it did not evaluate; none when it does not say", async () => {
    expect((await chat("cached")).usage).toEqual({ prompt_tokens: 20, completion_tokens: 3, evaluated_prompt_tokens: 4 });
    expect((await chat("plain")).usage).toEqual({ prompt_tokens: 20, completion_tokens: 3 });
  });

  it("assembles native tool calls streamed in fragments", async () => {
    const result = await chat("tools", { tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }] });
    expect(result.finish_reason).toBe("tool_calls");
    expect(result.tool_calls).toEqual([
      { id: "call_1", name: "read_file", arguments: { path: "a.txt" } },
      { id: "call_2", name: "list_dir", arguments: { path: "." } },
    ]);
    const sent = fake.requests.filter((r) => r.body.model === "tools-model").at(-1)!.body;
    expect(sent.tools[0]).toMatchObject({ type: "function", function: { name: "read_file" } });
  });

  it("keeps reasoning_content across a tool turn but never publishes it as text", async () => {
    const deltas: string[] = [];
    const sub = client.subscribe("agent.model.delta.>", { callback: (_e, m) => deltas.push(JSON.parse(m.string()).text) });
    await client.flush();
    const tools = [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    const first = await chat("deepseek", { tools });
    expect(first.reasoning_content).toBe("The user wants the file.");
    expect(first.tool_calls).toEqual([{ id: "call_r", name: "read_file", arguments: { path: "a.txt" } }]);
    const second = await chat("deepseek", {
      tools,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: first.text, reasoning_content: first.reasoning_content, tool_calls: first.tool_calls },
        { role: "tool", tool_call_id: "call_r", content: "hi" },
      ],
    });
    sub.unsubscribe();
    expect(second.text).toBe("Done: it says hi.");
    const sent = fake.requests.filter((r) => r.body.model === "deepseek-reasoner");
    expect(sent[0].body.reasoning_effort).toBe("max");
    expect(sent[1].body.messages[1]).toMatchObject({
      role: "assistant",
      reasoning_content: "The user wants the file.",
      tool_calls: [{ id: "call_r", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }],
    });
    expect(sent[1].body.messages[2]).toMatchObject({ role: "tool", tool_call_id: "call_r" });
    expect(deltas.join("")).not.toContain("The user wants");
  });

  it("retries 429 and 503 with back-off, then succeeds", async () => {
    const result = await chat("flaky");
    expect(result.text).toBe("third time lucky");
    expect(fake.attempts.get("flaky-model")).toBe(3);
    expect(service.logs()).toContain("retrying");
  });

  it("gives up on a server that stays down, and refuses a 4xx with the server's message", async () => {
    const down = await chatError("down");
    expect(down.code).toBe("MODEL_FAILED");
    expect(down.message).toContain("HTTP 503 after 3 attempts");
    expect(fake.attempts.get("down-model")).toBe(3);
    const bad = await chatError("bad-request");
    expect(bad.code).toBe("MODEL_FAILED");
    expect(bad.message).toContain("HTTP 400");
    expect(bad.message).toContain("unknown parameter foo");
    expect(fake.attempts.get("bad-request-model")).toBe(1);
  });

  it("times out a stalled stream, and refuses a redirect off loopback", async () => {
    expect((await chatError("stalled")).code).toBe("TIMEOUT");
    const redirected = await chatError("redirect");
    expect(redirected.code).toBe("MODEL_FAILED");
  });

  it("aborts a streaming generation: finish_reason abort with the partial text", async () => {
    let sawDelta!: () => void;
    const first = new Promise<void>((resolve) => (sawDelta = resolve));
    const sub = client.subscribe(modelDeltaSubject("slow-1"), { callback: () => sawDelta() });
    await client.flush();
    const pending = requestJson(client, "agent.model.chat", { request_id: "slow-1", session: "s", model: "slow", messages: [{ role: "user", content: "hi" }] }, 20_000);
    await first;
    expect(await requestJson(client, "agent.model.abort", { request_id: "slow-1" })).toEqual({ ok: true, result: { aborted: true } });
    const reply = await pending;
    sub.unsubscribe();
    expect(reply.ok).toBe(true);
    expect(reply.result.finish_reason).toBe("abort");
    expect(reply.result.text).toMatch(/^word0 /);
    expect(reply.result.text).not.toContain("word49");
  });

  it("Ollama: sets num_ctx explicitly, streams NDJSON, and native tools", async () => {
    const result = await chat("ollama");
    expect(result.text).toBe("Hi there");
    const sent = fake.requests.filter((r) => r.path === "/api/chat").at(-1)!.body;
    expect(sent.options.num_ctx).toBe(512);
    expect(sent.model).toBe("qwen-coder");
    const tools = await chat("ollama-tools", { tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }] });
    expect(tools.tool_calls).toEqual([{ id: "call_0", name: "read_file", arguments: { path: "b.txt" } }]);
    expect(tools.finish_reason).toBe("tool_calls");
  });

  it("Ollama: a prompt the server truncated is detected and refused PROMPT_TRUNCATED", async () => {
    const long = "function add(a, b) { return a + b; }\n".repeat(120);
    const error = await chatError("ollama", {
      messages: [
        { role: "system", content: "You are a coder." },
        { role: "user", content: long },
      ],
    });
    expect(error.code).toBe("PROMPT_TRUNCATED");
    expect(error.message).toMatch(/evaluated 512 prompt tokens/);
  });

  it("refuses an endpoint off loopback without consent, before any network access", async () => {
    const before = fake.requests.length;
    const error = await chatError("remote");
    expect(error.code).toBe("REMOTE_NOT_ALLOWED");
    expect(error.message).toContain("http://192.0.2.1/v1");
    expect(fake.requests.length).toBe(before);
    const list = ModelListReplySchema.parse(await requestJson(client, "agent.model.list", {}));
    if (!list.ok) throw new Error(list.error.message);
    expect(list.result.models.find((m) => m.id === "remote")).toMatchObject({ available: false });
    expect(list.result.models.find((m) => m.id === "plain")).toMatchObject({ available: true, loaded: true });
    expect(list.result.models.find((m) => m.id === "ollama")).toMatchObject({ available: true, loaded: true });
    expect(list.result.models.find((m) => m.id === "nobody-home")).toMatchObject({ available: false });
    expect(list.result.models.find((m) => m.id === "nobody-home")?.detail).toContain("ECONNREFUSED");
  });

  it("refuses an API key file readable by others", async () => {
    const error = await chatError("loose-key");
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain("0600");
  });
});
