import { describe, expect, it } from "vitest";
import { ArmSyntaxError, parseArm, parseArms } from "./parse-arm.js";

describe("--arm NAME=SETTINGS", () => {
  it("reads a name and its settings, grammar as on/off", () => {
    expect(parseArm("lean=prompt_tier=compact,grammar=off,scheduler=serial-v1")).toEqual({
      name: "lean",
      settings: { arm: "lean", prompt_tier: "compact", grammar: false, scheduler: "serial-v1" },
    });
    expect(parseArm("baseline")).toEqual({ name: "baseline", settings: { arm: "baseline" } });
    expect(parseArm("patch=edit_format=unified-diff,context_policy=stable-prefix-drop-v1").settings).toMatchObject({ edit_format: "unified-diff", context_policy: "stable-prefix-drop-v1" });
  });

  it("reads the grammar's scope (call or reply, grammar on) and the schema-constraint switch", () => {
    expect(parseArm("whole=grammar=reply,grammar_schema=on").settings).toEqual({ arm: "whole", grammar: true, grammar_scope: "reply", grammar_schema: true });
    expect(parseArm("part=grammar=call,grammar_schema=off").settings).toEqual({ arm: "part", grammar: true, grammar_scope: "call", grammar_schema: false });
    expect(parseArm("plain=grammar=on").settings).toEqual({ arm: "plain", grammar: true });
    expect(() => parseArm("x=grammar_schema=strict")).toThrow(/grammar_schema is one of on, off/);
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
});
