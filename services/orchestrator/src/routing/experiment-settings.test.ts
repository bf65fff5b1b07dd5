import { describe, expect, it } from "vitest";
import { ExperimentSettingsSchema, experiment, runExperimentOf, strategySettingNames, type ToolDescriptor } from "@aide/contracts";
import { applyEditFormat } from "./apply-edit-format.js";
import { selectTools } from "./select-tools.js";
import { groupCalls } from "../turn/execute-tool-calls.js";
import { modelFit, withExperimentFit } from "../context/model-fit.js";
import type { BatchCall } from "../session/session-record.js";

/** Each on/off strategy of the setting table, as a plain run records it. */
const plainStrategies = Object.fromEntries(strategySettingNames.map((name) => [name, false]));

function tool(name: string, readOnly: boolean): ToolDescriptor {
  return { name, description: name, parameters: { type: "object", properties: {} }, read_only: readOnly, parallel_safe: readOnly, handled_by: "tools" };
}
const catalog = [
  tool("read_file", true),
  tool("list_dir", true),
  tool("search_files", true),
  tool("write_file", false),
  tool("replace_in_file", false),
  tool("apply_patch", false),
  tool("run_command", false),
  { ...tool("attempt_completion", true), handled_by: "orchestrator" as const },
];
const names = (tools: ToolDescriptor[]) => tools.map((entry) => entry.name);
const call = (id: string, name: string): BatchCall => ({ id, name, arguments: {}, status: "queued" }) as unknown as BatchCall;

describe("experiment settings (eval arms)", () => {
  it("refuses unknown settings and unknown values, naming the field", () => {
    expect(ExperimentSettingsSchema.safeParse({ prompt_tier: "compact", grammar: false, scheduler: "serial-v1" }).success).toBe(true);
    const unknownValue = ExperimentSettingsSchema.safeParse({ scheduler: "fastest" });
    expect(unknownValue.success).toBe(false);
    expect(unknownValue.error?.issues[0].path).toEqual(["scheduler"]);
    const unknownSetting = ExperimentSettingsSchema.safeParse({ temperature: 0.2 });
    expect(unknownSetting.success).toBe(false);
    expect(ExperimentSettingsSchema.safeParse({ arm: "has space" }).success).toBe(false);
  });

  it("records the identifiers in force, defaults filled in", () => {
    expect(runExperimentOf(undefined, experiment)).toEqual({
      strategy: "agent-loop-v3",
      scheduler: "safe-parallel-v1",
      context_policy: "stable-prefix-compact-v1",
      edit_format: "routed-v1",
      edit_format_source: "default",
      // Every on/off strategy of the setting table, off unless set.
      ...plainStrategies,
      completion_grammar: "off",
    });
    // The model's registry entry gives the edit format when the start sets none; a configured default turns a strategy on.
    expect(runExperimentOf(undefined, { ...experiment, edit_format: "whole-file", strategies: { code_map: true } })).toMatchObject({
      edit_format: "whole-file",
      edit_format_source: "model",
      code_map: true,
    });
    expect(runExperimentOf({ edit_format: "unified-diff", code_map: false, test_command: "make check" }, { ...experiment, edit_format: "whole-file", strategies: { code_map: true } })).toMatchObject({
      edit_format: "unified-diff",
      edit_format_source: "setting",
      code_map: false,
      test_command: "make check",
    });
    expect(runExperimentOf({ arm: "b", grammar: false, scheduler: "serial-v1" }, experiment)).toMatchObject({
      arm: "b",
      grammar: false,
      scheduler: "serial-v1",
      context_policy: "stable-prefix-compact-v1",
    });
  });

  it("an edit format offers its one edit tool in catalog order, and none in Plan mode", () => {
    const routed = selectTools("Fix the bug in src/range.js", catalog, "act");
    expect(names(routed)).toEqual(expect.arrayContaining(["write_file", "replace_in_file", "apply_patch"]));
    expect(names(applyEditFormat(routed, catalog, "act", "routed-v1"))).toEqual(names(routed));
    const diffOnly = names(applyEditFormat(routed, catalog, "act", "unified-diff"));
    expect(diffOnly.filter((name) => ["write_file", "replace_in_file", "apply_patch"].includes(name))).toEqual(["apply_patch"]);
    // apply_patch is added even when the router would not have offered it.
    const plain = selectTools("What does this project do?", catalog, "act");
    expect(names(plain)).not.toContain("apply_patch");
    expect(names(applyEditFormat(plain, catalog, "act", "unified-diff"))).toEqual(["read_file", "list_dir", "search_files", "apply_patch", "run_command", "attempt_completion"]);
    expect(names(applyEditFormat(routed, catalog, "act", "whole-file"))).not.toContain("replace_in_file");
    const plan = selectTools("Fix the bug", catalog, "plan");
    expect(applyEditFormat(plan, catalog, "plan", "whole-file")).toEqual(plan);
  });

  it("the serial scheduler runs every read alone; the default groups consecutive reads", () => {
    const batch = [call("1", "read_file"), call("2", "list_dir"), call("3", "write_file"), call("4", "read_file")];
    expect(groupCalls(batch, catalog).map((group) => group.length)).toEqual([2, 1, 1]);
    expect(groupCalls(batch, catalog, "serial-v1").map((group) => group.length)).toEqual([1, 1, 1, 1]);
  });

  it("a set prompt tier and grammar win over the model's fit", () => {
    const fit = modelFit(100_000, undefined, 32_768, "openai");
    expect(fit.tier).toBe("full");
    expect(withExperimentFit(fit, { prompt_tier: "compact", grammar: false })).toMatchObject({ tier: "compact", grammar: false, budgetChars: fit.budgetChars });
    expect(withExperimentFit(fit, undefined)).toEqual(fit);
  });
});
