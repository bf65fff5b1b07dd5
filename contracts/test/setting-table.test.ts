import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  ExperimentSettingsSchema,
  RunExperimentSchema,
  armValuesOf,
  experiment,
  inForceSettingNames,
  plainRunValueOf,
  runExperimentOf,
  settingDefaults,
  settingNames,
  settingTable,
  strategySettingNames,
  type ExperimentSettings,
  type RunExperiment,
  type SchedulerId,
  type StrategySetting,
} from "../src/index.js";

/** Every list the contracts derive from the setting table agrees with it. */
describe("the setting table and what is derived from it", () => {
  it("the start command's schema takes exactly the table's settings (and the arm's name), each described", () => {
    expect(Object.keys(ExperimentSettingsSchema.shape)).toEqual(["arm", ...settingNames]);
    expect(settingNames).toContain("grammar_scope");
    const json = z.toJSONSchema(ExperimentSettingsSchema) as { properties: Record<string, { description?: string }>; additionalProperties?: unknown };
    for (const name of settingNames) expect(json.properties[name]?.description, name).toBe(settingTable[name].description);
    expect(json.additionalProperties).toBe(false);
  });

  it("run.created records every setting, and the strategies list is the in-force on/off ones", () => {
    expect(Object.keys(RunExperimentSchema.shape).filter((key) => !["strategy", "arm", "edit_format_source"].includes(key))).toEqual(settingNames);
    expect(strategySettingNames).toEqual(settingNames.filter((name) => settingTable[name].recorded === "in-force" && settingTable[name].schema instanceof z.ZodBoolean));
    expect(strategySettingNames).toContain("follow_imports");
    expect(strategySettingNames).not.toContain("grammar");
  });

  it("each default is a value of its setting, and every in-force setting has one", () => {
    for (const [name, value] of Object.entries(settingDefaults)) expect(settingTable[name as keyof typeof settingTable].schema.safeParse(value).success, name).toBe(true);
    for (const name of inForceSettingNames) expect(settingDefaults, name).toHaveProperty(name);
    expect(experiment.scheduler).toBe(settingDefaults.scheduler);
    expect(experiment.context_policy).toBe(settingDefaults.context_policy);
  });

  it("a setting that needs another names one of the table", () => {
    const needs = settingNames.flatMap((name) => (settingTable[name].requires ?? []).map((other) => [name, other]));
    expect(needs).toEqual([
      ["line_edits", "search_grammar"],
      ["follow_imports", "act_after_reads"],
    ]);
    for (const [, other] of needs) expect(settingNames).toContain(other);
  });

  it("the command line's values are the schema's (on/off for a boolean), and grammar also takes its scope", () => {
    expect(armValuesOf("auto_test")).toEqual(["on", "off"]);
    expect(armValuesOf("scheduler")).toEqual(["safe-parallel-v1", "serial-v1"]);
    expect(armValuesOf("grammar")).toEqual(["on", "off", "call", "reply"]);
    expect(armValuesOf("test_command")).toBeUndefined();
  });

  it("says what a plain run does for each setting", () => {
    expect(plainRunValueOf("auto_test")).toBe("off");
    expect(plainRunValueOf("scheduler")).toBe("safe-parallel-v1");
    expect(plainRunValueOf("grammar_schema")).toBe("on");
    expect(plainRunValueOf("instructions")).toMatch(/^the person's consent/);
    expect(plainRunValueOf("code_map")).toMatch(/^off \(AIDE_CODE_MAP_IN_PREFIX/);
  });

  it("a plain run's record holds every in-force setting at its default and nothing the start did not set", () => {
    const record = runExperimentOf(undefined, experiment);
    expect(Object.keys(record).sort()).toEqual(["strategy", "edit_format_source", ...inForceSettingNames].sort());
    expect(RunExperimentSchema.parse(record)).toEqual(record);
    expect(runExperimentOf({ grammar_scope: "call", instructions: false }, experiment)).toMatchObject({ grammar_scope: "call", instructions: false });
  });

  it("keeps the settings' own types", () => {
    expectTypeOf<ExperimentSettings["scheduler"]>().toEqualTypeOf<SchedulerId | undefined>();
    expectTypeOf<ExperimentSettings["follow_imports"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<RunExperiment["scheduler"]>().toEqualTypeOf<string>();
    expectTypeOf(settingDefaults.scheduler).toEqualTypeOf<SchedulerId>();
    expectTypeOf<"auto_test">().toExtend<StrategySetting>();
    expectTypeOf<"follow_imports">().toExtend<StrategySetting>();
    expectTypeOf<"grammar">().not.toExtend<StrategySetting>();
    expectTypeOf<"completion_grammar">().not.toExtend<StrategySetting>();
  });
});
