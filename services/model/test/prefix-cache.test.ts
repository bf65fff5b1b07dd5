import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import type { ModelChatResult } from "@aide/contracts";
import { sharedModelPath } from "../../../tests/helpers/service-process.js";
import { missingRealModel, realModelPath } from "../../../tests/helpers/real-models.js";
import { modelService, type Chat } from "./support/model-service.js";
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

/** One first turn per task, each in a new session: the system prompt and the task. */
async function firstTurns(chat: Chat, model: string, tasks: string[], tag: string): Promise<ModelChatResult[]> {
  const results: ModelChatResult[] = [];
  for (const [index, task] of tasks.entries()) {
    results.push(
      await chat({
        request_id: `${tag}-${index}`,
        session: `${tag}-${index}`,
        model,
        messages: [
          { role: "system", content: SYSTEM },
          { role: "user", content: task },
        ],
      }),
    );
  }
  return results;
}

/** The same first turns with the cache on and off; `prefix` is the prompt of the one-letter task "x" (index 2): the system prompt and little else. */
async function firstTurnsOnAndOff(on: Chat, off: Chat, model: string, tasks: string[]) {
  const withCache = await firstTurns(on, model, tasks, "on");
  const without = await firstTurns(off, model, tasks, "off");
  const prefix = without[2].usage.prompt_tokens;
  return { withCache, without, prefix, figures: JSON.stringify({ prefix, on: withCache.map((result) => result.usage), off: without.map((result) => result.usage) }) };
}

/**
 * Sessions before `from` evaluate their whole prompt with the cache; from `from` on each reuses at
 * least the prefix (less MARGIN); without the cache (the control) every first turn evaluates its
 * whole prompt; the prompts and the replies (temperature 0) are the same on both.
 */
function expectPrefixReused({ withCache, without, prefix, figures }: Awaited<ReturnType<typeof firstTurnsOnAndOff>>, from: number): void {
  for (const [index, turn] of withCache.entries()) {
    const { prompt_tokens, evaluated_prompt_tokens } = turn.usage;
    if (index < from) expect(evaluated_prompt_tokens, figures).toBe(prompt_tokens);
    else expect(prompt_tokens - evaluated_prompt_tokens!, figures).toBeGreaterThanOrEqual(prefix - MARGIN);
    expect(without[index].usage.evaluated_prompt_tokens, figures).toBe(without[index].usage.prompt_tokens);
    expect(prompt_tokens).toBe(without[index].usage.prompt_tokens);
    expect(turn.text, `reply ${index}`).toBe(without[index].text);
  }
}

/** A new session's first turn starts from the saved prefix, and its second turn evaluates only what the first did not hold. */
async function expectOwnSequenceReused(chat: Chat, model: string): Promise<void> {
  const messages = [
    { role: "system", content: SYSTEM },
    { role: "user", content: "Read notes.txt." },
  ];
  const first = await chat({ request_id: `${model}-own-1`, session: `${model}-own`, model, messages });
  expect(first.usage.evaluated_prompt_tokens!, JSON.stringify(first.usage)).toBeLessThan(first.usage.prompt_tokens / 2);
  const second = await chat({
    request_id: `${model}-own-2`,
    session: `${model}-own`,
    model,
    messages: [...messages, { role: "assistant", content: first.text }, { role: "user", content: "Tool result: hello." }],
  });
  expect(second.usage.evaluated_prompt_tokens!, JSON.stringify(second.usage)).toBeLessThan(second.usage.prompt_tokens - first.usage.prompt_tokens + MARGIN);
}

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

  it("a later session's first turn evaluates only what follows the shared system prefix, with the same reply", async () => {
    const { withCache, without, prefix, figures } = await firstTurnsOnAndOff(cached.chat, uncached.chat, "stories", TASKS);
    // The first session has nothing to share: it evaluates everything, on both.
    // The first session has nothing to share: it evaluates everything; every later one loads the prefix.
    expectPrefixReused({ withCache, without, prefix, figures }, 1);
  }, 240_000);

  it("a session's later turns still reuse its own sequence after it started from the cache", async () => {
    await expectOwnSequenceReused(cached.chat, "stories");
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

  it("from the third session on, a first turn evaluates only what follows the shared prefix, with the same replies", async () => {
    const { withCache, without, prefix, figures } = await firstTurnsOnAndOff(cached.chat, uncached.chat, "gemma", GEMMA_TASKS);
    // The first two sessions evaluate everything (the second evaluates the shared prefix first and saves it).
    expectPrefixReused({ withCache, without, prefix, figures }, 2);
  }, 300_000);

  it("a session that started from the saved prefix still reuses its own sequence on its next turn", async () => {
    await expectOwnSequenceReused(cached.chat, "gemma");
  }, 300_000);
});
