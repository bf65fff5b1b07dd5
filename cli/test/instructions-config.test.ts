import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { instructionsSetting } from "../src/commands/up.js";
import { serviceDefinitions, type StackSettings } from "../src/supervisor/service-table.js";
import { testStackSettings } from "./stack-settings.js";

const settings = testStackSettings;
const orchestratorEnv = (stack: StackSettings, env: NodeJS.ProcessEnv) => serviceDefinitions(stack, env).find((definition) => definition.name === "orchestrator")!.env;

describe("the person's instructions key reaches the orchestrator through aide up", () => {
  it("reads instructions from $AIDE_HOME/run.json; absent or invalid, nothing", () => {
    const home = mkdtempSync(join(tmpdir(), "aide-instr-config-"));
    expect(instructionsSetting(home)).toEqual({});
    writeFileSync(join(home, "run.json"), JSON.stringify({ instructions: "trust", auto_approve: "edits" }));
    expect(instructionsSetting(home)).toEqual({ instructions: "trust" });
    writeFileSync(join(home, "run.json"), JSON.stringify({ instructions: "always" }));
    expect(instructionsSetting(home)).toEqual({});
  });
  it("passes it as AIDE_INSTRUCTIONS to the orchestrator only; the environment's own wins", () => {
    expect(orchestratorEnv({ ...settings, instructions: "ignore" }, { PATH: "/usr/bin" })).toMatchObject({ AIDE_INSTRUCTIONS: "ignore" });
    expect(orchestratorEnv({ ...settings, instructions: "ignore" }, { PATH: "/usr/bin", AIDE_INSTRUCTIONS: "ask", AIDE_INSTRUCTIONS_BUDGET_TOKENS: "600" })).toMatchObject({
      AIDE_INSTRUCTIONS: "ask",
      AIDE_INSTRUCTIONS_BUDGET_TOKENS: "600",
    });
    expect(orchestratorEnv(settings, { PATH: "/usr/bin" })).not.toHaveProperty("AIDE_INSTRUCTIONS");
    for (const other of serviceDefinitions({ ...settings, instructions: "trust" }, {}).filter((definition) => definition.name !== "orchestrator"))
      expect(other.env).not.toHaveProperty("AIDE_INSTRUCTIONS");
  });
});
