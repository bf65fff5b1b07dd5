import { describe, expect, it } from "vitest";
import { ArmSyntaxError, parseArm, parseArms, parseSettings } from "./parse-arm.js";

describe("--arm NAME=SETTINGS", () => {
  it("reads a name and its settings, grammar as on/off", () => {
    expect(parseArm("lean=prompt_tier=compact,grammar=off,scheduler=serial-v1")).toEqual({
      name: "lean",
      settings: { arm: "lean", prompt_tier: "compact", grammar: false, scheduler: "serial-v1" },
    });
    expect(parseArm("baseline")).toEqual({ name: "baseline", settings: { arm: "baseline" } });
    expect(parseArm("patch=edit_format=unified-diff,context_policy=stable-prefix-drop-v1").settings).toMatchObject({ edit_format: "unified-diff", context_policy: "stable-prefix-drop-v1" });
  });

  it("reads the strategies as on/off and the test command as free text up to the next comma", () => {
    expect(parseArm("helped=auto_test=on,test_command=python3 -m pytest -q,auto_lint=on,prefix_failing_output=on,code_map=off,few_shot=on,loop_breaker=on").settings).toEqual({
      arm: "helped",
      auto_test: true,
      test_command: "python3 -m pytest -q",
      auto_lint: true,
      prefix_failing_output: true,
      code_map: false,
      few_shot: true,
      loop_breaker: true,
    });
    expect(parseArm("eq=test_command=make test VERBOSE=1").settings.test_command).toBe("make test VERBOSE=1");
    expect(() => parseArm("x=test_command=")).toThrow(/test_command needs a value/);
    expect(() => parseArm("x=few_shot=yes")).toThrow(/few_shot is one of on, off, not "yes"/);
  });

  it("reads completion_grammar (off or evidence), which the start command's schema accepts", () => {
    expect(parseArm("x=completion_grammar=evidence").settings).toEqual({ arm: "x", completion_grammar: "evidence" });
    expect(parseArm("y=completion_grammar=off").settings).toEqual({ arm: "y", completion_grammar: "off" });
    expect(() => parseArm("z=completion_grammar=on")).toThrow(/completion_grammar is one of off, evidence, not "on"/);
  });

  it("reads the grammar's scope (call or reply, grammar on) and the schema-constraint switch", () => {
    expect(parseArm("whole=grammar=reply,grammar_schema=on").settings).toEqual({ arm: "whole", grammar: true, grammar_scope: "reply", grammar_schema: true });
    expect(parseArm("part=grammar=call,grammar_schema=off").settings).toEqual({ arm: "part", grammar: true, grammar_scope: "call", grammar_schema: false });
    expect(parseArm("plain=grammar=on").settings).toEqual({ arm: "plain", grammar: true });
    expect(() => parseArm("x=grammar_schema=strict")).toThrow(/grammar_schema is one of on, off/);
  });

  it("reads the project-instructions arm as on/off (off: none loaded; on: trusted, eval runs being headless)", () => {
    expect(parseArms(["instructions-off=instructions=off", "instructions-on=instructions=on,grammar=reply,grammar_schema=on"]).map((arm) => arm.settings)).toEqual([
      { arm: "instructions-off", instructions: false },
      { arm: "instructions-on", instructions: true, grammar: true, grammar_scope: "reply", grammar_schema: true },
    ]);
    expect(parseSettings(["instructions=off"])).toEqual({ instructions: false });
    expect(() => parseArm("x=instructions=trust")).toThrow(/instructions is one of on, off, not "trust"/);
  });

  it("refuses unknown settings and values, naming what is accepted", () => {
    expect(() => parseArm("x=temperature=0.2")).toThrow(/unknown setting "temperature"; the settings are prompt_tier, grammar/);
    expect(() => parseArm("x=scheduler=fastest")).toThrow(/scheduler is one of safe-parallel-v1, serial-v1, not "fastest"/);
    expect(() => parseArm("x=grammar=true")).toThrow(/grammar is one of on, off/);
    expect(() => parseArm("x=prompt_tier")).toThrow(ArmSyntaxError);
    expect(() => parseArm("x=prompt_tier=full,prompt_tier=compact")).toThrow(/set twice/);
    expect(() => parseArm("=prompt_tier=full")).toThrow(/name comes first/);
    expect(() => parseArms(["a=grammar=on", "a=grammar=off"])).toThrow(/--arm a is given twice/);
  });

  it("reads aide run's --setting flags with the same rules, one setting per flag", () => {
    expect(parseSettings(["few_shot=on", "test_command=make test ARGS=a,b", "edit_format=whole-file"])).toEqual({ few_shot: true, test_command: "make test ARGS=a,b", edit_format: "whole-file" });
    expect(parseSettings([])).toEqual({});
    expect(() => parseSettings(["few_shot=on", "few_shot=off"])).toThrow(/few_shot is set twice/);
    expect(() => parseSettings(["arm=x"])).toThrow(/unknown setting "arm"/);
    expect(() => parseSettings(["loop_breaker=maybe"])).toThrow(/--setting loop_breaker=maybe: loop_breaker is one of on, off/);
  });
});

describe("--arm and --setting take every setting of the table", () => {
  it("accepts each value the table lists for each setting, and names them all when a setting is unknown", async () => {
    const { armValuesOf, settingNames } = await import("@aide/contracts");
    for (const name of settingNames) {
      for (const value of armValuesOf(name) ?? ["make check"]) expect(() => parseSettings([`${name}=${value}`]), `${name}=${value}`).not.toThrow();
    }
    expect(parseSettings(["grammar_scope=call"])).toEqual({ grammar_scope: "call" });
    expect(() => parseArm("x=grammar=call,grammar_scope=reply")).toThrow(/grammar_scope is set twice/);
    expect(() => parseArm("x=nope=on")).toThrow(new RegExp(`the settings are ${settingNames.join(", ")}$`));
  });
});
