import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { settingNames } from "@aide/contracts";
import { createProgram } from "../cli-program.js";
import { modelSettingsText, settingsMarkdown, settingsText } from "./settings.js";

const page = join(import.meta.dirname, "..", "..", "..", "docs", "settings.md");

describe("the settings a person reads, from the setting table", () => {
  it("docs/settings.md is the table (regenerate: AIDE_UPDATE_DOCS=1)", () => {
    if (process.env.AIDE_UPDATE_DOCS === "1") writeFileSync(page, settingsMarkdown());
    expect(readFileSync(page, "utf8")).toBe(settingsMarkdown());
  });

  it("aide settings and the page name every setting once, with its plain-run value", () => {
    const text = settingsText();
    for (const name of settingNames) {
      expect(
        text.split("\n").filter((line) => line.startsWith(`${name} = `)),
        name,
      ).toHaveLength(1);
      expect(settingsMarkdown()).toContain(`| \`${name}\` |`);
    }
    expect(text).toContain("auto_test = off");
    expect(text).toContain("scheduler = safe-parallel-v1");
  });

  it("the help of --arm and --setting lists every setting", () => {
    const program = createProgram({ set: () => undefined });
    const evalRun = program.commands.find((command) => command.name() === "eval")!.commands.find((command) => command.name() === "run")!;
    const arm = evalRun.options.find((option) => option.long === "--arm")!.description;
    const setting = program.commands.find((command) => command.name() === "run")!.options.find((option) => option.long === "--setting")!.description;
    for (const name of settingNames) {
      expect(arm, name).toMatch(new RegExp(`\\b${name}\\b`));
      expect(setting, name).toMatch(new RegExp(`\\b${name}\\b`));
    }
    expect(program.commands.map((command) => command.name())).toContain("settings");
  });
});

describe("aide settings --model: the model's own settings", () => {
  const info = { id: "tiny", provider: "llama", thinking: false, native_tools: false, context_budget: 2048, max_output_tokens: 256, max_iterations: 8, available: true, loaded: false } as const;
  it("says each choice and where it came from", () => {
    const plain = modelSettingsText({ ...info });
    expect(plain).toContain("prompt_tier = compact (its window)");
    expect(plain).toContain("edit_format = routed-v1 (the default)");
    expect(plain).toContain("tool_calls = xml (its registry entry)");
    expect(plain).toContain("grammar = the model service's default");
    const chosen = modelSettingsText({ ...info, context_budget: 32_768, edit_format: "whole-file" });
    expect(chosen).toContain("prompt_tier = full (its window)");
    expect(chosen).toContain("edit_format = whole-file (its registry entry)");
  });
});
