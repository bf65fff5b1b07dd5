import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import type { ModelChatResult } from "@aide/contracts";
import { sharedModelPath } from "../../../tests/helpers/service-process.js";
import { missingRealModel, realModelPath } from "../../../tests/helpers/real-models.js";
import { modelService } from "./support/model-service.js";
import { compactedTurn, reused } from "./support/compaction-flow.js";

/**
 * Issue 28: every session's first turn evaluated the same system prefix again (52 % of an eval
 * run's evaluated prompt tokens). With the prefix cache (llama-prefix-cache.ts, on by default) a
 * new session's first turn loads the saved state of an earlier session that began with the same
 * system prompt and evaluates only what follows it. Two real model services with the shipped
 * stories260K, the cache on and off (AIDE_MODEL_PREFIX_CACHE=0, the control): the same three
 * first turns on both; asserted on the service's `prompt_tokens` and `evaluated_prompt_tokens`,
 * and the replies (temperature 0) must be the same text with and without the cache.
 */
const SYSTEM = `You are a coding agent working in a small project. ${Array.from({ length: 24 }, (_, i) => `Rule ${i + 1}: read the files before changing them, and run the tests after.`).join(" ")}`;
const TASKS = ["Fix the failing test in math.js.", "Add a README section about the tests.", "x"];
/** Tokens at the end of the shortest prompt that are not the system prefix (the task and turn markers). */
const MARGIN = 16;

const have = existsSync(sharedModelPath);
const models = () => [
  { id: "stories", provider: "llama", file: sharedModelPath, contextBudget: 2048, maxOutputTokens: 24, maxSessions: 4 },
  { id: "single", provider: "llama", file: sharedModelPath, contextBudget: 2048, maxOutputTokens: 24, maxSessions: 1 },
];

describe.skipIf(!have)(`${have ? "" : `SKIPPED: no model at ${sharedModelPath}: `}a prompt-prefix cache shared across sessions (stories260K, real model services)`, () => {
  const cached = modelService(models);
  const uncached = modelService(models, { AIDE_MODEL_PREFIX_CACHE: "0" });
  beforeAll(() => Promise.all([cached.start(), uncached.start()]), 120_000);
  afterAll(() => Promise.all([cached.stop(), uncached.stop()]));

  const firstTurns = async (chat: typeof cached.chat, tag: string): Promise<ModelChatResult[]> => {
    const results: ModelChatResult[] = [];
    for (const [index, task] of TASKS.entries()) {
      results.push(await chat({ request_id: `${tag}-${index}`, session: `${tag}-${index}`, model: "stories", messages: [{ role: "system", content: SYSTEM }, { role: "user", content: task }] }));
    }
    return results;
  };

  it("a later session's first turn evaluates only what follows the shared system prefix, with the same reply", async () => {
    const withCache = await firstTurns(cached.chat, "on");
    const without = await firstTurns(uncached.chat, "off");
    const prefix = without[2].usage.prompt_tokens; // the system prompt and the one-letter task "x"
    const figures = JSON.stringify({ prefix, on: withCache.map((result) => result.usage), off: without.map((result) => result.usage) });
    // The first session has nothing to share: it evaluates everything, on both.
    expect(withCache[0].usage.evaluated_prompt_tokens, figures).toBe(withCache[0].usage.prompt_tokens);
    for (const index of [1, 2]) {
      const { prompt_tokens, evaluated_prompt_tokens } = withCache[index].usage;
      expect(prompt_tokens - evaluated_prompt_tokens!, figures).toBeGreaterThanOrEqual(prefix - MARGIN);
      // Control: without the cache each first turn evaluates its whole prompt.
      expect(without[index].usage.evaluated_prompt_tokens, figures).toBe(without[index].usage.prompt_tokens);
    }
    for (const index of [0, 1, 2]) {
      expect(withCache[index].usage.prompt_tokens).toBe(without[index].usage.prompt_tokens);
      expect(withCache[index].text, `reply ${index}`).toBe(without[index].text);
    }
  }, 240_000);

  it("a session's later turns still reuse its own sequence after it started from the cache", async () => {
    const messages = [{ role: "system", content: SYSTEM }, { role: "user", content: "Read notes.txt." }];
    const first = await cached.chat({ request_id: "own-1", session: "own", model: "stories", messages });
    expect(first.usage.evaluated_prompt_tokens!).toBeLessThan(first.usage.prompt_tokens / 2);
    const second = await cached.chat({ request_id: "own-2", session: "own", model: "stories", messages: [...messages, { role: "assistant", content: first.text }, { role: "user", content: "Tool result: hello." }] });
    expect(second.usage.evaluated_prompt_tokens!, JSON.stringify(second.usage)).toBeLessThan(second.usage.prompt_tokens - first.usage.prompt_tokens + MARGIN);
  }, 240_000);

  it("with a single sequence, the turn after a one-off summary (which had to take the session's sequence) loads the prefix back", async () => {
    const { prefix, after } = await compactedTurn((body) => cached.chat({ model: "single", ...body }), "refill", true);
    expect(reused(after), JSON.stringify({ prefix, usage: after.usage })).toBeGreaterThanOrEqual(prefix - MARGIN);
    // Control: the same flow without the cache evaluates the prefix again (one-off-cache.test.ts).
    const control = await compactedTurn((body) => uncached.chat({ model: "single", ...body }), "refill", true);
    expect(reused(control.after)).toBeLessThan(control.prefix / 2);
  }, 240_000);
});

/**
 * Gemma 3 (sliding-window attention): its sequences cannot erase a tail (`needsCheckpoints`), so a
 * saved first turn is of no use to a later prompt that differs after the system prefix, and the
 * cache used to skip it: every session's first turn evaluated the whole system prefix again. Now
 * the second first turn evaluates the prefix it shares with the first, saves that state and goes
 * on; every later first turn loads it and evaluates only what follows. The real Gemma 3 270M from
 * the install step, the cache on and off (the control); temperature 0, so the replies must be the
 * same text with and without it.
 */
const gemma = realModelPath("gemma3-270m");
const gemmaModels = () => [{ id: "gemma", provider: "llama", file: gemma, contextBudget: 2048, maxOutputTokens: 12, maxSessions: 2, threads: 1 }];
const GEMMA_TASKS = ["Fix the failing test in math.js.", "Add a README section about the tests.", "x", "Rename the function total to sum."];

describe.skipIf(!gemma)(gemma ? "the prefix cache on a sliding-window model (the real Gemma 3 270M, real model services)" : `Gemma prefix cache — SKIPPED: ${missingRealModel("gemma3-270m")}`, () => {
  const cached = modelService(gemmaModels);
  const uncached = modelService(gemmaModels, { AIDE_MODEL_PREFIX_CACHE: "0" });
  beforeAll(() => Promise.all([cached.start(), uncached.start()]), 180_000);
  afterAll(() => Promise.all([cached.stop(), uncached.stop()]));

  const firstTurns = async (chat: typeof cached.chat, tag: string): Promise<ModelChatResult[]> => {
    const results: ModelChatResult[] = [];
    for (const [index, task] of GEMMA_TASKS.entries()) {
      results.push(await chat({ request_id: `${tag}-${index}`, session: `${tag}-${index}`, model: "gemma", messages: [{ role: "system", content: SYSTEM }, { role: "user", content: task }] }));
    }
    return results;
  };

  it("from the third session on, a first turn evaluates only what follows the shared prefix, with the same replies", async () => {
    const withCache = await firstTurns(cached.chat, "on");
    const without = await firstTurns(uncached.chat, "off");
    const prefix = without[2].usage.prompt_tokens; // the system prompt and the one-letter task "x"
    const figures = JSON.stringify({ prefix, on: withCache.map((result) => result.usage), off: without.map((result) => result.usage) });
    // The first two sessions evaluate everything (the second evaluates the shared prefix first and saves it).
    for (const index of [0, 1]) expect(withCache[index].usage.evaluated_prompt_tokens, figures).toBe(withCache[index].usage.prompt_tokens);
    for (const index of [2, 3]) {
      const { prompt_tokens, evaluated_prompt_tokens } = withCache[index].usage;
      expect(prompt_tokens - evaluated_prompt_tokens!, figures).toBeGreaterThanOrEqual(prefix - MARGIN);
      expect(without[index].usage.evaluated_prompt_tokens, figures).toBe(without[index].usage.prompt_tokens);
    }
    for (const index of GEMMA_TASKS.keys()) {
      expect(withCache[index].usage.prompt_tokens).toBe(without[index].usage.prompt_tokens);
      expect(withCache[index].text, `reply ${index}`).toBe(without[index].text);
    }
  }, 300_000);

  it("a session that started from the saved prefix still reuses its own sequence on its next turn", async () => {
    const messages = [{ role: "system", content: SYSTEM }, { role: "user", content: "Read notes.txt." }];
    const first = await cached.chat({ request_id: "gemma-own-1", session: "gemma-own", model: "gemma", messages });
    expect(first.usage.evaluated_prompt_tokens!, JSON.stringify(first.usage)).toBeLessThan(first.usage.prompt_tokens / 2);
    const second = await cached.chat({ request_id: "gemma-own-2", session: "gemma-own", model: "gemma", messages: [...messages, { role: "assistant", content: first.text }, { role: "user", content: "Tool result: hello." }] });
    expect(second.usage.evaluated_prompt_tokens!, JSON.stringify(second.usage)).toBeLessThan(second.usage.prompt_tokens - first.usage.prompt_tokens + MARGIN);
  }, 300_000);
});
