import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "./attempt-record.js";
import { chooseEditFormats, editFormatMarkdown } from "./edit-format-choice.js";

function attempt(task: number, model: string, arm: string | undefined, editFormat: string, passed: boolean): AttemptRecord {
  return {
    run: "synthetic",
    attempt: `t${task}-${model}-${arm}`,
    task: `t${task}`,
    language: "python",
    category: "bug",
    difficulty: "easy",
    model,
    ...(arm ? { arm } : {}),
    repeat: 0,
    outcome: passed ? "done" : "unverified",
    check_passed: passed,
    check_exit_code: passed ? 0 : 1,
    check_timed_out: false,
    iterations: 3,
    prompt_tokens: 100,
    completion_tokens: 0,
    tool_calls: 3,
    tool_errors: 0,
    model_ms: 10,
    wall_ms: 1000,
    session_ms: 1000,
    check_ms: 5,
    events: "events/x.jsonl",
    experiment: { strategy: "agent-loop-v3", scheduler: "safe-parallel-v1", context_policy: "stable-prefix-compact-v1", edit_format: editFormat },
  };
}

describe("the edit format per model, from eval results", () => {
  it("recommends a format only on a significant paired win over the router's choice, with the command that applies it", () => {
    const records = Array.from({ length: 20 }, (_, task) => [
      attempt(task, "small", undefined, "routed-v1", task < 4),
      attempt(task, "small", "whole", "whole-file", task < 16),
      // A second model where the formats pass the same tasks: nothing to change.
      attempt(task, "other", undefined, "routed-v1", task < 10),
      attempt(task, "other", "patch", "unified-diff", task < 10),
    ]).flat();
    const [other, small] = chooseEditFormats(records);
    expect(small).toMatchObject({ model: "small", edit_format: "whole-file", significant: true, pairs: 20, command: "aide models edit-format small whole-file" });
    expect(small.p_value).toBeLessThan(0.05);
    expect(other).toMatchObject({ model: "other", edit_format: "routed-v1", significant: false });
    expect(other.command).toBeUndefined();
    const table = editFormatMarkdown([other, small]).join("\n");
    expect(table).toContain("| small | small / whole (whole-file, 80 %) | small (20 %) | 20 |");
    expect(table).toContain("`aide models edit-format small whole-file`");
    expect(table).toContain("| other | ");
    expect(table).toContain("keep the router's choice");
  });

  it("keeps the router's choice on a small sample even when another format passed more", () => {
    const records = Array.from({ length: 4 }, (_, task) => [attempt(task, "m", undefined, "routed-v1", false), attempt(task, "m", "sr", "search-replace", true)]).flat();
    const [choice] = chooseEditFormats(records);
    expect(choice).toMatchObject({ edit_format: "routed-v1", significant: false, best: { edit_format: "search-replace", pass_rate: 1 } });
  });
});
