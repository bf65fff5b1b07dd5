import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { ModelListReplySchema, ModelProfileSchema, type ModelInfo } from "@aide/contracts";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, sharedModelPath, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { startFakeServer, type FakeServer } from "./fake-openai-server.js";

async function list(client: NatsConnection): Promise<{ models: ModelInfo[]; default: string; hint?: string }> {
  const reply = ModelListReplySchema.parse(await requestJson(client, "agent.model.list", {}));
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.result;
}

describe("the model service with nothing configured and nothing found (real process)", () => {
  let bus: TestBus;
  let client: NatsConnection;
  let service: ServiceProcess;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-model-empty-"));
    bus = await startTestBus();
    client = await bus.connectAs("tester");
    service = await startServiceProcess(bus, "model", { env: { AIDE_HOME: home, AIDE_MODEL_DISCOVERY: "off" } });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("every client is told what to do (drop a GGUF, start Ollama, aide models add), never about a model nobody named", async () => {
    const listed = await list(client);
    expect(listed.models).toEqual([]);
    expect(listed.hint).toContain(join(home, "models"));
    const chat = await requestJson(client, "agent.model.chat", { request_id: "c1", session: "s", messages: [{ role: "user", content: "hi" }] });
    expect(chat.ok).toBe(false);
    expect(chat.error.code).toBe("NO_MODEL");
    for (const needle of [`drop a GGUF file into ${join(home, "models")}`, "start Ollama", "aide models add"]) expect(chat.error.message).toContain(needle);
    expect(chat.error.message).not.toContain("luna");
  });

  it("a GGUF dropped into the models folder is offered without a restart, with its real window (file watch)", async () => {
    mkdirSync(join(home, "models"), { recursive: true });
    copyFileSync(sharedModelPath, join(home, "models", "dropped.gguf"));
    let found: ModelInfo | undefined;
    for (let attempt = 0; attempt < 100 && !found; attempt++) {
      found = (await list(client)).models.find((model) => model.id === "dropped");
      if (!found) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(found).toMatchObject({ provider: "llama", source: "discovered", context_budget: 2048, available: true });
  });
});

describe("discovery of loopback servers, reload and the capability probe (real process, real HTTP servers)", () => {
  let bus: TestBus;
  let client: NatsConnection;
  let service: ServiceProcess;
  let ollama: FakeServer;
  let llamaServer: FakeServer;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-model-discovery-"));
    mkdirSync(join(home, "models"));
    copyFileSync(sharedModelPath, join(home, "models", "stories.gguf"));
    // Ollama that cuts every prompt at 1024 tokens whatever num_ctx says, and returns no tool calls.
    ollama = await startFakeServer({ models: ["qwen-coder"], trainedContext: 32_768, ollamaCap: 1024 });
    // llama-server with a 4096-token slot that returns native tool calls.
    llamaServer = await startFakeServer({ models: ["local.gguf"], llamaServerContext: 4096 });
    const port = (server: FakeServer) => new URL(server.url).port;
    bus = await startTestBus();
    client = await bus.connectAs("tester");
    service = await startServiceProcess(bus, "model", {
      env: {
        AIDE_HOME: home,
        AIDE_MODEL_DISCOVERY: `ollama=${port(ollama)},llamacpp=${port(llamaServer)},lmstudio=0,vllm=0`,
        AIDE_MODEL_MAX_CONTEXT: "8192",
        AIDE_MODEL_THREADS: "1",
        AIDE_MODEL_PROBE_TRIALS: "3",
      },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    await ollama?.close();
    await llamaServer?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it("offers the GGUF and every loopback server's models with ids, windows from the servers, the GGUF as default", async () => {
    const listed = await list(client);
    const byId = Object.fromEntries(listed.models.map((model) => [model.id, model]));
    expect(Object.keys(byId).sort()).toEqual(["llamacpp:local.gguf", "ollama:qwen-coder", "stories"]);
    expect(listed.default).toBe("stories");
    expect(byId.stories).toMatchObject({ provider: "llama", source: "discovered", context_budget: 2048 });
    // Ollama's trained 32k capped by AIDE_MODEL_MAX_CONTEXT; llama-server's own n_ctx.
    expect(byId["ollama:qwen-coder"]).toMatchObject({ provider: "openai", source: "discovered", context_budget: 8192, available: true });
    expect(byId["llamacpp:local.gguf"]).toMatchObject({ provider: "openai", context_budget: 4096, available: true });
  });

  it("agent.model.reload takes a models.json document without a restart: configured entries win; a bad field is refused by path and the registry stays", async () => {
    const document = { default: "mine", models: [{ id: "mine", provider: "openai", baseUrl: `${ollama.url}/v1`, model: "qwen-coder", flavor: "ollama", contextBudget: 2048 }] };
    const reloaded = await requestJson(client, "agent.model.reload", { document, source: "test models.json" });
    expect(reloaded).toMatchObject({ ok: true, result: { default: "mine" } });
    const listed = await list(client);
    // The configured entry points at the same endpoint model, so the discovered duplicate is gone.
    expect(listed.models.map((model) => model.id).sort()).toEqual(["llamacpp:local.gguf", "mine", "stories"]);
    expect(listed.models.find((model) => model.id === "mine")).toMatchObject({ source: "configured", context_budget: 2048 });
    const bad = await requestJson(client, "agent.model.reload", { document: { models: [{ id: "x", provider: "openai", baseUrl: "not a url", model: "m" }] } });
    expect(bad).toMatchObject({ ok: false, error: { code: "CONFIG_INVALID" } });
    expect(bad.error.message).toContain("models.0.baseUrl");
    expect((await list(client)).default).toBe("mine");
    const unknown = await requestJson(client, "agent.model.chat", { request_id: "u1", session: "s", model: "nope", messages: [{ role: "user", content: "hi" }] });
    expect(unknown).toMatchObject({ ok: false, error: { code: "MODEL_NOT_FOUND" } });
    expect(unknown.error.message).toContain("known ids: mine, stories, llamacpp:local.gguf");
    // Back to discovery only (models.json removed).
    expect(await requestJson(client, "agent.model.reload", { document: null })).toMatchObject({ ok: true, result: { default: "stories" } });
  });

  it("probes an Ollama-like endpoint: finds the silent cut (applied window below num_ctx), no native calls → XML, compact tier", async () => {
    const reply = await requestJson(client, "agent.model.probe", { model: "ollama:qwen-coder" }, 60_000);
    expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
    const profile = ModelProfileSchema.parse(reply.result);
    expect(profile.context.trained).toBe(32_768);
    expect(profile.context.long_prompt).toMatchObject({ truncated: true, evaluated: 1024 });
    expect(profile.context.loaded).toBe(1024);
    expect(profile.context.window).toBe(1024);
    expect(profile.prompt_tier).toBe("compact");
    expect(profile.tool_calls).toBe("xml");
    expect(profile.tool_trials.without_grammar).toMatchObject({ trials: 3, native: 0 });
    expect(profile.kv_reuse).toBeUndefined();
    // The num_ctx aide asked for was the discovered 8192.
    expect(ollama.requests.some((request) => request.path === "/api/chat" && request.body.options?.num_ctx === 8192)).toBe(true);
  });

  it("probes a llama-server-like endpoint: its n_ctx is the window, parsed native calls → native", async () => {
    const reply = await requestJson(client, "agent.model.probe", { model: "llamacpp:local.gguf" }, 60_000);
    expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
    const profile = ModelProfileSchema.parse(reply.result);
    expect(profile.context).toMatchObject({ loaded: 4096, window: 4096 });
    expect(profile.context.long_prompt).toBeUndefined();
    expect(profile.tool_calls).toBe("native");
    expect(profile.tool_trials.without_grammar.native).toBe(3);
    expect(profile.prompt_tier).toBe("compact");
    // The discovered endpoint now uses native calls: the next chat sends the tools to the server.
    expect((await list(client)).models.find((model) => model.id === "llamacpp:local.gguf")).toMatchObject({ native_tools: true, profile: { tool_calls: "native" } });
    const before = llamaServer.requests.length;
    const chat = await requestJson(
      client,
      "agent.model.chat",
      {
        request_id: "native-1",
        session: "n",
        model: "llamacpp:local.gguf",
        messages: [{ role: "user", content: "read notes" }],
        tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }],
      },
      20_000,
    );
    expect(chat.result.tool_calls).toMatchObject([{ name: "read_file", arguments: { path: "notes.txt" } }]);
    expect(llamaServer.requests.slice(before).at(-1)?.body.tools).toHaveLength(1);
  });

  it("probes the shipped GGUF: metadata and loaded window, KV reuse, grammar trials, template roles; cached once per file and shown in the list", async () => {
    const reply = await requestJson(client, "agent.model.probe", { model: "stories" }, 120_000);
    expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
    const profile = ModelProfileSchema.parse(reply.result);
    expect(profile.context).toMatchObject({ trained: 2048, loaded: 2048, window: 2048 });
    expect(profile.prompt_tier).toBe("compact");
    expect(profile.kv_reuse?.reused).toBe(true);
    expect(profile.kv_reuse!.second_turn_evaluated).toBeLessThan(profile.kv_reuse!.second_turn_prompt);
    expect(profile.tool_trials.with_grammar).toMatchObject({ trials: 3, valid: 3 });
    expect(profile.tool_trials.without_grammar.trials).toBe(3);
    expect(profile.grammar).toBe(true);
    expect(profile.tool_calls).toBe("xml");
    expect(profile.speed.decode_tokens_per_s).toBeGreaterThan(0);
    expect(profile.chars_per_token).toBeGreaterThan(0);
    expect(typeof profile.template.system_role).toBe("boolean");
    const again = await requestJson(client, "agent.model.probe", { model: "stories" }, 30_000);
    expect(again.result.probed_at).toBe(profile.probed_at);
    expect(readdirSync(join(home, "model-state", "profiles")).filter((name) => name.endsWith(".json")).length).toBe(3);
    const listed = await list(client);
    expect(listed.models.find((model) => model.id === "stories")?.profile?.probed_at).toBe(profile.probed_at);
    expect(existsSync(join(home, "model-state"))).toBe(true);
  }, 150_000);

  it("a run's automatic probe never spends a remote endpoint's tokens; asked explicitly it would run", async () => {
    await requestJson(client, "agent.model.reload", {
      document: { models: [{ id: "remote", provider: "openai", baseUrl: "http://192.0.2.1/v1", model: "m", allowRemote: true, maxRetries: 0, timeoutMs: 1000 }] },
    });
    const automatic = await requestJson(client, "agent.model.probe", { model: "remote", automatic: true });
    expect(automatic).toMatchObject({ ok: false, error: { code: "VALIDATION" } });
    expect(automatic.error.message).toContain("aide models probe remote");
    expect(await requestJson(client, "agent.model.reload", { document: null })).toMatchObject({ ok: true });
  });

  it("refuses to probe a scripted model or an unknown id, and survives a bad probe request", async () => {
    expect(await requestJson(client, "agent.model.probe", { model: "nope" })).toMatchObject({ ok: false, error: { code: "MODEL_NOT_FOUND" } });
    expect(await requestJson(client, "agent.model.probe", { model: 7 })).toMatchObject({ ok: false, error: { code: "VALIDATION" } });
    expect((await list(client)).models.length).toBe(3);
  });
});
