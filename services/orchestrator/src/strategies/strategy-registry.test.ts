import { describe, expect, it } from "vitest";
import { settingTable, strategySettingNames, type ExperimentSettings } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import { createRunPolicies } from "../run/run-policies.js";
import { loopBreaker } from "./break-loops.js";
import { activeStrategies, completionOptions, unusableReplyInstruction } from "./run-strategies.js";
import { strategyRegistry } from "./strategy-registry.js";

const runWith = (experiment: ExperimentSettings) =>
  ({ session: { record: { experiment } }, policies: createRunPolicies("fix the bug in a.go"), state: { iterations: 1 }, seams: { config: {} } }) as unknown as RunContext;
const names = (experiment: ExperimentSettings) => activeStrategies(runWith(experiment)).map((strategy) => strategy.setting);

describe("the strategy registry and the setting table", () => {
  it("has one module per strategy setting of the table, each a setting of the table once", () => {
    const registered = strategyRegistry.map((strategy) => strategy.setting);
    expect(new Set(registered).size).toBe(registered.length);
    for (const name of registered) expect(settingTable).toHaveProperty(name);
    const strategies = [...strategySettingNames, "completion_grammar"];
    expect([...registered].sort()).toEqual([...strategies].sort());
  });

  it("runs a strategy only when its setting is on and the settings it needs are on too", () => {
    expect(names({})).toEqual([]);
    expect(names({ follow_imports: true })).toEqual([]);
    expect(names({ follow_imports: true, act_after_reads: true })).toEqual(["follow_imports", "act_after_reads"]);
    expect(names({ line_edits: true })).toEqual([]);
    expect(names({ line_edits: true, search_grammar: true })).toEqual(["search_grammar", "line_edits"]);
    expect(names({ completion_grammar: "off" })).toEqual([]);
    expect(names({ completion_grammar: "evidence", code_needs_run: true })).toEqual(["completion_grammar", "code_needs_run"]);
  });

  it("orders the hooks so that a strategy runs after the one whose result it reads", () => {
    const at = (name: string) => strategyRegistry.findIndex((strategy) => strategy.setting === name);
    expect(at("follow_imports")).toBeLessThan(at("path_grammar"));
    expect(at("follow_imports")).toBeLessThan(at("act_after_reads"));
    expect(at("search_grammar")).toBeLessThan(at("line_edits"));
    expect(at("loop_breaker")).toBeLessThan(at("auto_test"));
    expect(at("auto_test")).toBeLessThan(at("auto_lint"));
    expect(at("code_map")).toBeLessThan(at("prefix_failing_output"));
  });
});

describe("the hooks the loop runs", () => {
  it("code_needs_run tightens the gate's options only when on", () => {
    expect(completionOptions(runWith({})).codeNeedsRun).toBe(false);
    expect(completionOptions(runWith({ code_needs_run: true })).codeNeedsRun).toBe(true);
  });

  it("loop_breaker answers the same parse errors of the turn right before, not of an older turn", () => {
    const context = runWith({ loop_breaker: true });
    const errors = ["attempt_completion: <result> is required"];
    expect(unusableReplyInstruction(context, errors, [])).toBeUndefined();
    context.state.iterations = 2;
    expect(unusableReplyInstruction(context, errors, [])).toMatch(/^LOOP: your last two replies/);
    // Turn 3 had a usable call; turn 4's errors are not a repeat of turn 2's.
    context.state.iterations = 4;
    expect(loopBreaker.unusableReply?.(context, errors, [])).toBeUndefined();
    expect(unusableReplyInstruction(runWith({}), errors, [])).toBeUndefined();
  });
});
