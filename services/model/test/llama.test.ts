import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { modelDeltaSubject, ModelChatReplySchema, ModelListReplySchema, type ChatTool, type ModelChatResult } from "@aide/contracts";
import { parseTextToolCalls } from "../src/tool-call-parse.js";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, sharedModelPath, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";

const haveModel = existsSync(sharedModelPath);
const title = haveModel ? "llama provider with the shipped stories260K model (real bus, real process)" : `llama provider — SKIPPED: no model at ${sharedModelPath}`;

/** Eight tools shaped like the real catalog; string values bounded so the nonsense model's calls close. */
const catalog: ChatTool[] = [
  {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string", maxLength: 40 }, offset: { type: "integer" } }, required: ["path"], additionalProperties: false },
  },
  { name: "list_dir", description: "List a folder", parameters: { type: "object", properties: { path: { type: "string", maxLength: 40 }, recursive: { type: "boolean" } }, required: ["path"] } },
  {
    name: "search",
    description: "Search files",
    parameters: { type: "object", properties: { query: { type: "string", maxLength: 40 }, path: { type: "string", maxLength: 40 } }, required: ["query"] },
  },
  {
    name: "write_file",
    description: "Write a file",
    parameters: { type: "object", properties: { path: { type: "string", maxLength: 40 }, content: { type: "string", maxLength: 60 } }, required: ["path", "content"] },
  },
  {
    name: "replace_in_file",
    description: "Edit a file",
    parameters: { type: "object", properties: { path: { type: "string", maxLength: 40 }, diff: { type: "string", maxLength: 60 } }, required: ["path", "diff"] },
  },
  {
    name: "run_command",
    description: "Run a command",
    parameters: { type: "object", properties: { command: { type: "string", maxLength: 40 }, timeout_ms: { type: "integer" } }, required: ["command"] },
  },
  { name: "git_status", description: "Git status", parameters: { type: "object", properties: { mode: { enum: ["short", "long"] } }, required: [] } },
  { name: "attempt_completion", description: "Finish", parameters: { type: "object", properties: { result: { type: "string", maxLength: 60 } }, required: ["result"] } },
];

function chat(client: NatsConnection, body: Record<string, unknown>, timeoutMs = 60_000): Promise<ModelChatResult> {
  return requestJson(client, "agent.model.chat", { model: "stories", stream: true, ...body }, timeoutMs).then((raw) => {
    const reply = ModelChatReplySchema.parse(raw);
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    return reply.result;
  });
}

describe.skipIf(!haveModel)(title, () => {
  let bus: TestBus;
  let client: NatsConnection;
  let service: ServiceProcess;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "aide-model-llama-"));
    writeFileSync(
      join(dir, "models.json"),
      JSON.stringify({
        default: "stories",
        models: [
          { id: "stories", provider: "llama", file: sharedModelPath, contextBudget: 2048, maxOutputTokens: 64, maxSessions: 3 },
          { id: "tiny-context", provider: "llama", file: sharedModelPath, contextBudget: 256, maxSessions: 1 },
          { id: "no-flash", provider: "llama", file: sharedModelPath, contextBudget: 256, maxSessions: 1, flashAttention: false },
          { id: "missing", provider: "llama", file: join(dir, "nope.gguf") },
          { id: "not-pulled", provider: "llama", uri: "hf:someone/some-model/model.Q4_K_M.gguf" },
        ],
      }),
    );
    bus = await startTestBus();
    client = await bus.connectAs("orchestrator");
    // Without the prefix cache shared across sessions (prefix-cache.test.ts tests it): here a new
    // session must evaluate its whole prompt, which is what the per-session assertions below read.
    service = await startServiceProcess(bus, "model", { env: { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: dir, AIDE_MODEL_MAX_LOADED: "2", AIDE_MODEL_PREFIX_CACHE: "0" } });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("lists local models: present and not loaded, absent unavailable", async () => {
    const reply = ModelListReplySchema.parse(await requestJson(client, "agent.model.list", {}));
    if (!reply.ok) throw new Error(reply.error.message);
    const byId = Object.fromEntries(reply.result.models.map((m) => [m.id, m]));
    expect(byId.stories).toMatchObject({ available: true, loaded: false, provider: "llama" });
    expect(byId.missing).toMatchObject({ available: false });
    const refused = await requestJson(client, "agent.model.chat", { request_id: "m1", session: "x", model: "missing", messages: [{ role: "user", content: "hi" }] });
    expect(refused).toMatchObject({ ok: false, error: { code: "MODEL_UNAVAILABLE" } });
    expect(byId["not-pulled"]).toMatchObject({ available: false, detail: "not pulled yet: aide models pull not-pulled" });
    const notPulled = await requestJson(client, "agent.model.chat", { request_id: "m2", session: "x", model: "not-pulled", messages: [{ role: "user", content: "hi" }] });
    expect(notPulled).toMatchObject({ ok: false, error: { code: "MODEL_UNAVAILABLE" } });
    expect(notPulled.error.message).toContain("aide models pull not-pulled");
  });

  it("loads, streams deltas that add up to the reply, and reports the model loaded", async () => {
    const deltas: string[] = [];
    const sub = client.subscribe(modelDeltaSubject("l1"), { callback: (_e, m) => deltas.push(JSON.parse(m.string()).text) });
    await client.flush();
    const result = await chat(client, { request_id: "l1", session: "stream", messages: [{ role: "user", content: "Tell me a story." }], temperature: 0 });
    sub.unsubscribe();
    expect(result.text.length).toBeGreaterThan(0);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(result.text);
    expect(result.usage.completion_tokens).toBeGreaterThan(0);
    const list = ModelListReplySchema.parse(await requestJson(client, "agent.model.list", {}));
    expect(list.ok && list.result.models.find((m) => m.id === "stories")?.loaded).toBe(true);
  });

  it("a second turn on the same session evaluates only the new tokens (library counters)", async () => {
    const messages = [
      { role: "system", content: "You are a coding agent. Answer with a tool call." },
      { role: "user", content: "Read the file notes.txt and tell me what it says." },
    ];
    const first = await chat(client, { request_id: "k1", session: "kv", messages, temperature: 0.5, seed: 1 });
    expect(first.usage.evaluated_prompt_tokens).toBe(first.usage.prompt_tokens);
    messages.push({ role: "assistant", content: first.text }, { role: "user", content: "Tool result: the file says hello." });
    const second = await chat(client, { request_id: "k2", session: "kv", messages, temperature: 0.5, seed: 2 });
    const grown = second.usage.prompt_tokens - first.usage.prompt_tokens;
    expect(grown).toBeGreaterThan(first.usage.completion_tokens / 2);
    // Only the tokens after what the sequence holds (the reply's end marker and the new user turn).
    expect(second.usage.evaluated_prompt_tokens).toBeLessThan(grown - first.usage.completion_tokens / 2);
    expect(second.usage.evaluated_prompt_tokens).toBeLessThan(second.usage.prompt_tokens / 3);
    // The same history on a new session evaluates everything.
    const fresh = await chat(client, { request_id: "k3", session: "kv-fresh", messages, temperature: 0.5, seed: 2 });
    expect(fresh.usage.evaluated_prompt_tokens).toBe(fresh.usage.prompt_tokens);
  });

  it("sessions sharing the loaded model do not corrupt each other", async () => {
    const messages = [{ role: "user", content: "Once upon a time there was a robot." }];
    const alone = await chat(client, { request_id: "c0", session: "solo", messages, temperature: 0 });
    const together = await Promise.all(["p1", "p2", "p3"].map((session, i) => chat(client, { request_id: `c${i + 1}`, session, messages, temperature: 0 })));
    for (const result of together) expect(result.text).toBe(alone.text);
  });

  it("evicts the least recently used session when every sequence is taken", async () => {
    const messages = [{ role: "user", content: "A story about a cat and a dog." }];
    const a1 = await chat(client, { request_id: "e1", session: "ev-a", messages, temperature: 0 });
    const grown = [...messages, { role: "assistant", content: a1.text }, { role: "user", content: "More." }];
    const warm = await chat(client, { request_id: "e2", session: "ev-a", messages: grown, temperature: 0 });
    expect(warm.usage.evaluated_prompt_tokens).toBeLessThan(warm.usage.prompt_tokens);
    // maxSessions is 3: three other sessions push ev-a out.
    for (const session of ["ev-b", "ev-c", "ev-d"]) await chat(client, { request_id: `e-${session}`, session, messages, temperature: 0 });
    const again = await chat(client, { request_id: "e3", session: "ev-a", messages: [...grown, { role: "assistant", content: warm.text }, { role: "user", content: "Again." }], temperature: 0 });
    expect(again.usage.evaluated_prompt_tokens).toBe(again.usage.prompt_tokens);
  });

  it("aborts mid-generation; the next request on the session works", async () => {
    const body = {
      request_id: "a1",
      session: "abort",
      messages: [{ role: "user", content: "Write a very long story." }],
      // A required call whose free-text value has no bound: the nonsense model never closes it.
      tools: [{ name: "write_file", description: "Write", parameters: { type: "object", properties: { content: { type: "string" } }, required: ["content"] } }],
      tool_choice: "required",
      max_tokens: 1500,
      temperature: 0.8,
    };
    let sawDelta!: () => void;
    const firstDelta = new Promise<void>((resolve) => (sawDelta = resolve));
    const sub = client.subscribe(modelDeltaSubject("a1"), { callback: () => sawDelta() });
    await client.flush();
    const pending = chat(client, body);
    await firstDelta;
    const abort = await requestJson(client, "agent.model.abort", { request_id: "a1" });
    expect(abort).toEqual({ ok: true, result: { aborted: true } });
    const result = await pending;
    sub.unsubscribe();
    expect(result.finish_reason).toBe("abort");
    expect(result.usage.completion_tokens).toBeLessThan(1500);
    const next = await chat(client, { request_id: "a2", session: "abort", messages: [{ role: "user", content: "Hello again." }], temperature: 0 });
    expect(["stop", "length"]).toContain(next.finish_reason);
    expect(next.text.length).toBeGreaterThan(0);
  });

  it("refuses a prompt that does not fit the context with CONTEXT_FULL (never shifts it)", async () => {
    const long = "The cat sat on the mat and looked at the dog. ".repeat(40);
    const reply = await requestJson(client, "agent.model.chat", { request_id: "f1", session: "full", model: "tiny-context", messages: [{ role: "user", content: long }] }, 60_000);
    expect(reply).toMatchObject({ ok: false, error: { code: "CONTEXT_FULL" } });
  });

  it("never cuts the front of a prompt near the context limit: every accepted prompt is evaluated whole", async () => {
    let accepted = 0;
    let refused = false;
    for (let words = 20; words < 400 && !refused; words += 12) {
      const content = Array.from({ length: words }, (_, i) => `w${i % 10}`).join(" ");
      const raw = await requestJson(
        client,
        "agent.model.chat",
        { request_id: `n${words}`, session: `near-${words}`, model: "tiny-context", messages: [{ role: "user", content }], max_tokens: 1 },
        60_000,
      );
      if (!raw.ok) {
        expect(raw.error.code).toBe("CONTEXT_FULL");
        refused = true;
        break;
      }
      accepted++;
      expect(raw.result.usage.evaluated_prompt_tokens, `${words} words`).toBe(raw.result.usage.prompt_tokens);
    }
    expect(refused).toBe(true);
    expect(accepted).toBeGreaterThan(5);
  }, 120_000);

  it("100 grammar-constrained replies against an 8-tool catalog all parse into valid calls", async () => {
    const failures: string[] = [];
    let calls = 0;
    for (let i = 0; i < 100; i++) {
      const result = await chat(client, {
        request_id: `g${i}`,
        session: `grammar-${i % 3}`,
        messages: [
          { role: "system", content: "You are an agent. Call one tool." },
          { role: "user", content: `Task number ${i}: look around the project.` },
        ],
        tools: catalog,
        tool_choice: "required",
        max_tokens: 300,
        temperature: 0.8,
        seed: i,
        stream: false,
      });
      const parsed = parseTextToolCalls(result.text, catalog);
      calls += parsed.calls.length;
      if (parsed.calls.length !== 1 || parsed.errors.length > 0) failures.push(`${i} (${result.finish_reason}): ${parsed.errors.join(", ")} ${JSON.stringify(result.text.slice(-120))}`);
    }
    expect(failures).toEqual([]);
    expect(calls).toBe(100);
  }, 300_000);

  it("the grammars built from the real tool catalog (the tools service's schema snapshot) are accepted and yield calls, in both scopes and with the schemas' bounds", async () => {
    // Large maxLength values (a 4096-character path, a 2000-character pattern) once made llama.cpp refuse the grammar.
    const snapshot = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "tools", "src", "framework", "__snapshots__", "tool-schemas.json"), "utf8")) as ChatTool[];
    const realCatalog = snapshot.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
    // The old default grammar (prose then a call, typed values) leaves a body or array value
    // unbounded: measured, this model's three replies all ran to the cap inside <code_map>. The
    // strict values (grammar_schema, now the default with reply scope) close one-line and prose
    // values at the next '<': those must yield calls.
    for (const [variant, mustParse] of [
      [{}, true],
      [{ grammar_scope: "call", grammar_schema: false }, false],
      [{ grammar_scope: "reply", grammar_schema: true }, true],
      [{ grammar_scope: "call", grammar_schema: true }, true],
    ] as const) {
      const outcomes: string[] = [];
      let parsedCalls = 0;
      for (const seed of [7, 8, 9]) {
        const reply = await requestJson(
          client,
          "agent.model.chat",
          {
            request_id: `real-catalog-${seed}`,
            session: "real-catalog",
            messages: [
              { role: "system", content: "You are an agent. Call one tool." },
              { role: "user", content: "Look at the README." },
            ],
            tools: realCatalog,
            tool_choice: "required",
            max_tokens: 400,
            seed,
            stream: false,
            ...variant,
          },
          120_000,
        );
        expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
        const parsed = parseTextToolCalls(reply.result.text, realCatalog);
        outcomes.push(`${seed} ${reply.result.finish_reason}: ${parsed.errors.join(", ")} ${JSON.stringify(reply.result.text.slice(-80))}`);
        // A reply the cap cut is reported as "length"; every other one is exactly one valid call.
        if (reply.result.finish_reason !== "length") {
          expect(parsed.errors, outcomes.at(-1)).toEqual([]);
          expect(parsed.calls.length, outcomes.at(-1)).toBe(1);
        }
        parsedCalls += parsed.errors.length === 0 ? parsed.calls.length : 0;
      }
      // Cuts cannot hide a grammar that never yields a call: at least one reply of three parsed.
      if (mustParse) expect(parsedCalls, `${JSON.stringify(variant)}: ${outcomes.join(" | ")}`).toBeGreaterThanOrEqual(1);
    }
  }, 300_000);

  it("runs llama.cpp's flash attention unless the spec turns it off (the loaded context's own setting)", async () => {
    await chat(client, { request_id: "fa1", session: "fa", messages: [{ role: "user", content: "Hi." }], max_tokens: 4, temperature: 0 });
    await chat(client, { request_id: "fa2", session: "fa", model: "no-flash", messages: [{ role: "user", content: "Hi." }], max_tokens: 4, temperature: 0 });
    const list = ModelListReplySchema.parse(await requestJson(client, "agent.model.list", {}));
    if (!list.ok) throw new Error(list.error.message);
    const detail = (id: string) => list.result.models.find((m) => m.id === id)?.detail ?? "";
    expect(detail("no-flash")).toContain("flash attention off");
    // The list reports loaded models only; MAX_LOADED 2 keeps both loaded after these two turns.
    expect(detail("stories")).toContain("flash attention on");
  });
});
