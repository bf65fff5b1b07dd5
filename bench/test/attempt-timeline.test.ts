import { describe, expect, it } from "vitest";
import { attemptTimeline } from "../lib/attempt-timeline.js";

/** Events as an eval attempt records them, `ts` in seconds after a fixed start. */
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString();
const event = (seconds: number, type: string, payload: Record<string, unknown> = {}, depth?: number) => ({ type, ts: at(seconds), payload, ...(depth !== undefined ? { depth } : {}) });

describe("attemptTimeline: where one attempt's time went", () => {
  const events = [
    event(0, "run.created"),
    event(20, "context.built", { compacted: false }),
    // Turn 1, streamed: 4 s to the first token, 30 s generating to the limit.
    event(20, "model.requested", { request_id: "r1" }),
    event(24, "model.delta", { text: "The" }),
    event(54, "model.responded", { request_id: "r1", finish_reason: "length", prompt_tokens: 400, cached_prompt_tokens: 0, evaluated_prompt_tokens: 400, completion_tokens: 512 }),
    event(54, "tool.started", { call_id: "c1" }),
    event(56, "tool.completed", { call_id: "c1" }),
    // A child agent's model turn is not this attempt's.
    event(56, "model.requested", { request_id: "child" }, 1),
    event(57, "model.responded", { request_id: "child", completion_tokens: 99 }, 1),
    // Turn 2: a compaction of 10 s before it, then a reply sent whole (no deltas).
    event(66, "context.built", { compacted: true }),
    event(66, "model.requested", { request_id: "r2" }),
    event(71, "model.responded", { request_id: "r2", finish_reason: "stop", prompt_tokens: 900, cached_prompt_tokens: 5, evaluated_prompt_tokens: 895, completion_tokens: 30 }),
    event(72, "run.failed"),
  ];

  it("splits setup, prefill, generation, unstreamed replies, tools and context, and counts the length-capped turn", () => {
    const timeline = attemptTimeline(events);
    expect(timeline).toMatchObject({
      wall_ms: 72_000,
      setup_ms: 20_000,
      prefill_ms: 4_000,
      generation_ms: 30_000,
      unstreamed_ms: 5_000,
      tools_ms: 2_000,
      context_ms: 10_000,
      other_ms: 1_000,
      length_capped_turns: 1,
      length_capped_tokens: 512,
      length_capped_ms: 34_000,
      completion_tokens: 542,
      evaluated_prompt_tokens: 1295,
      prompt_tokens: 1300,
    });
    expect(timeline.turns.map((turn) => [turn.iteration, turn.finish_reason, turn.compacted, turn.context_ms])).toEqual([
      [1, "length", false, 0],
      [2, "stop", true, 10_000],
    ]);
  });
});
