import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { modelDeltaSubject, ModelChatReplySchema, ModelListReplySchema, ModelAbortReplySchema, ModelDeltaSchema } from "@aide/contracts";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { repoRoot, requestJson, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";

const transcript = {
  replies: [
    { text: "Hello there, I will read the file now.", chunks: ["Hello ", "there, ", "I will read ", "the file now."] },
    { text: "", tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "a.txt" } }] },
    { text: "slow reply that will be aborted", chunks: ["slow ", "reply ", "that ", "will ", "be ", "aborted"], delay_ms: 6000 },
  ],
};

function chatRequest(requestId: string, session: string, extra: Record<string, unknown> = {}) {
  return { request_id: requestId, session, model: "script", messages: [{ role: "user", content: `hi from ${requestId}` }], ...extra };
}

describe("model service with the scripted provider (real bus, real process)", () => {
  let bus: TestBus;
  let client: NatsConnection;
  let service: ServiceProcess;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "aide-model-scripted-"));
    writeFileSync(join(dir, "transcript.json"), JSON.stringify(transcript));
    writeFileSync(join(dir, "slow.json"), JSON.stringify({ replies: [{ text: "a b c d e f", chunks: ["a ", "b ", "c ", "d ", "e ", "f"], delay_ms: 12_000 }] }));
    writeFileSync(
      join(dir, "models.json"),
      JSON.stringify({
        default: "script",
        models: [
          { id: "script", provider: "scripted", transcript: join(dir, "transcript.json"), record: join(dir, "record.jsonl") },
          { id: "slow-script", provider: "scripted", transcript: join(dir, "slow.json") },
        ],
      }),
    );
    bus = await startTestBus();
    client = await bus.connectAs("orchestrator");
    service = await startServiceProcess(bus, "model", { env: { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: dir } });
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the registry with availability", async () => {
    const reply = ModelListReplySchema.parse(await requestJson(client, "agent.model.list", {}));
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    expect(reply.result.default).toBe("script");
    expect(reply.result.models).toHaveLength(2);
    expect(reply.result.models[0]).toMatchObject({ id: "script", provider: "scripted", available: true });
  });

  it("streams deltas before the final reply, replays per session, and records every request", async () => {
    const deltas: unknown[] = [];
    const sub = client.subscribe(modelDeltaSubject("r1"), { callback: (_e, m) => deltas.push(JSON.parse(new TextDecoder().decode(m.data))) });
    await client.flush();
    const first = ModelChatReplySchema.parse(await requestJson(client, "agent.model.chat", chatRequest("r1", "s1")));
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.result.text).toBe("Hello there, I will read the file now.");
    expect(first.result.finish_reason).toBe("stop");
    expect(first.result.usage.prompt_tokens).toBeGreaterThan(0);
    // NATS keeps one connection's publishes in order: every delta arrived before the reply.
    expect(deltas.map((d) => ModelDeltaSchema.parse(d).text)).toEqual(["Hello ", "there, ", "I will read ", "the file now."]);
    expect(deltas.map((d) => ModelDeltaSchema.parse(d).index)).toEqual([0, 1, 2, 3]);
    sub.unsubscribe();

    const second = ModelChatReplySchema.parse(await requestJson(client, "agent.model.chat", chatRequest("r2", "s1", { stream: false })));
    expect(second.ok && second.result.tool_calls).toEqual([{ id: "c1", name: "read_file", arguments: { path: "a.txt" } }]);
    expect(second.ok && second.result.finish_reason).toBe("tool_calls");

    // Another session starts at the first reply.
    const other = ModelChatReplySchema.parse(await requestJson(client, "agent.model.chat", chatRequest("r3", "s2")));
    expect(other.ok && other.result.text).toBe("Hello there, I will read the file now.");

    const recorded = readFileSync(join(dir, "record.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(recorded.map((r) => r.request_id)).toEqual(["r1", "r2", "r3"]);
    expect(recorded[0].messages[0].content).toBe("hi from r1");
  });

  it("aborts a generation in flight: the chat replies finish_reason abort", async () => {
    const pending = requestJson(client, "agent.model.chat", chatRequest("r4", "s1"), 20_000);
    const deltas: string[] = [];
    const sub = client.subscribe(modelDeltaSubject("r4"), { callback: (_e, m) => deltas.push(m.string()) });
    await client.flush();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const abort = ModelAbortReplySchema.parse(await requestJson(client, "agent.model.abort", { request_id: "r4" }));
    expect(abort.ok && abort.result.aborted).toBe(true);
    const reply = ModelChatReplySchema.parse(await pending);
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    expect(reply.result.finish_reason).toBe("abort");
    expect(reply.result.text.length).toBeLessThan("slow reply that will be aborted".length);
    sub.unsubscribe();
  });

  it("answers MODEL_FAILED when a session runs past the transcript", async () => {
    const reply = await requestJson(client, "agent.model.chat", chatRequest("r5", "s1"));
    expect(reply).toMatchObject({ ok: false, error: { code: "MODEL_FAILED" } });
    expect(reply.error.message).toContain("scripted transcript exhausted after 3 replies");
  });

  it("refuses unknown models and bad requests with stable codes", async () => {
    expect(await requestJson(client, "agent.model.chat", chatRequest("r6", "s1", { model: "nope" }))).toMatchObject({ ok: false, error: { code: "MODEL_NOT_FOUND" } });
    expect(await requestJson(client, "agent.model.chat", { request_id: "r7", session: "s1", messages: [] })).toMatchObject({ ok: false, error: { code: "VALIDATION" } });
    expect(await requestJson(client, "agent.model.chat", "{nope")).toMatchObject({ ok: false, error: { code: "BAD_JSON" } });
  });

  it("refuses a config with a bad field, naming the field's path", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ models: [{ id: "x", provider: "openai", baseUrl: "not a url", model: "m" }] }));
    // Spawned directly: the healthy instance above would answer $SRV.PING for it.
    const child = spawn(process.execPath, [join(repoRoot, "services", "model", "dist", "main.js")], {
      env: { PATH: process.env.PATH ?? "", AIDE_NATS_URL: bus.url, AIDE_NATS_CREDS: bus.server.credentialFiles.model ?? "", AIDE_MODELS_CONFIG: bad },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(output).toContain("CONFIG_INVALID");
    expect(output).toMatch(/models\.0\.baseUrl/);
  });

  it("answers TIMEOUT when timeout_ms passes first", async () => {
    const reply = await requestJson(client, "agent.model.chat", { request_id: "to1", session: "timeout", model: "slow-script", messages: [{ role: "user", content: "hi" }], timeout_ms: 300 });
    expect(reply).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
  });

  it("on SIGTERM, answers a generation in flight with finish_reason abort, then exits 0", async () => {
    const pending = requestJson(client, "agent.model.chat", { request_id: "t1", session: "term", model: "slow-script", messages: [{ role: "user", content: "hi" }] }, 20_000);
    const deltas: string[] = [];
    let sawDelta!: () => void;
    const first = new Promise<void>((resolve) => (sawDelta = resolve));
    const sub = client.subscribe(modelDeltaSubject("t1"), {
      callback: (_e, m) => {
        deltas.push(m.string());
        sawDelta();
      },
    });
    await client.flush();
    await first;
    const code = service.stop("SIGTERM");
    const reply = ModelChatReplySchema.parse(await pending);
    sub.unsubscribe();
    expect(reply.ok && reply.result.finish_reason).toBe("abort");
    expect(await code).toBe(0);
  });
});
