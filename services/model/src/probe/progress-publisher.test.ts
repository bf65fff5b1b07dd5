import { describe, expect, it } from "vitest";
import type { ModelProbeProgress } from "@aide/contracts";
import { throttledProgress } from "./progress-publisher.js";

const report = (stage: ModelProbeProgress["stage"], step: number): ModelProbeProgress => ({ model: "m", stage, step, steps: 10, percent: step * 10, elapsed_ms: step });

describe("throttledProgress", () => {
  it("sends every new stage and the end, and within a stage at most once a second", () => {
    let now = 0;
    const sent: string[] = [];
    const listener = throttledProgress(
      (progress) => sent.push(`${progress.stage}:${progress.step}`),
      () => now,
    );
    listener(report("loading", 0));
    listener(report("speed", 1));
    now = 200;
    listener(report("speed", 2));
    now = 1_300;
    listener(report("speed", 3));
    listener(report("tool_trials", 4));
    listener(report("tool_trials", 5));
    listener(report("done", 10));
    expect(sent).toEqual(["loading:0", "speed:1", "speed:3", "tool_trials:4", "done:10"]);
  });
});
