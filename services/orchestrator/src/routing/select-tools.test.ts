import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "@aide/contracts";
import { classifyIntents } from "./classify-intents.js";
import { CORE_ACT_TOOLS, selectTools } from "./select-tools.js";

function tool(name: string, readOnly: boolean, handledBy: "tools" | "orchestrator" = "tools"): ToolDescriptor {
  return { name, description: name, parameters: { type: "object", properties: {} }, read_only: readOnly, parallel_safe: readOnly, handled_by: handledBy };
}

const catalog: ToolDescriptor[] = [
  tool("read_file", true),
  tool("list_dir", true),
  tool("search_files", true),
  tool("write_file", false),
  tool("replace_in_file", false),
  tool("apply_patch", false),
  tool("run_command", false),
  tool("process_start", false),
  tool("process_poll", true),
  tool("process_cancel", false),
  tool("git_status", true),
  tool("git_diff", true),
  tool("attempt_completion", true, "orchestrator"),
  tool("update_plan", false, "orchestrator"),
  tool("remember", false, "orchestrator"),
  tool("recall", true, "orchestrator"),
  tool("forget", false, "orchestrator"),
  tool("spawn_agent", false, "orchestrator"),
  tool("switch_to_act_mode", true, "orchestrator"),
];
const names = (tools: ToolDescriptor[]) => tools.map((entry) => entry.name);

describe("classifyIntents", () => {
  it.each([
    ["Create hello.txt", ["artifacts"]],
    ["Run the tests", ["execution"]],
    ["Write a script that sums numbers", ["artifacts", "source"]],
    ["Summarize the results in a report", ["reports"]],
    ["Compare quicksort vs mergesort", ["comparisons"]],
    ["Start the dev server in the background and poll it", ["processes"]],
    ["Show me the git diff of uncommitted work", ["git"]],
    ["Remember that I prefer tabs", ["memory"]],
    ["Delegate the review to a sub-agent", ["delegation"]],
    ["hello there", []],
  ])("%s → %j", (task, expected) => {
    expect(classifyIntents(task)).toEqual(expected);
  });
});

describe("selectTools (act)", () => {
  it("always keeps the core workspace tools", () => {
    for (const task of ["hello", "Remember that I like tabs", "Show the git diff"]) {
      const selected = names(selectTools(task, catalog, "act"));
      for (const core of CORE_ACT_TOOLS) expect(selected).toContain(core);
    }
  });

  it("adds tools per intent and leaves unrelated ones out", () => {
    const selected = names(selectTools("Show the git diff", catalog, "act"));
    expect(selected).toEqual(expect.arrayContaining(["git_status", "git_diff"]));
    expect(selected).not.toContain("spawn_agent");
    expect(selected).not.toContain("remember");
    expect(selected).not.toContain("process_start");
    expect(names(selectTools("Remember that I like tabs", catalog, "act"))).toEqual(expect.arrayContaining(["remember", "recall", "forget"]));
    expect(names(selectTools("Start the server in the background", catalog, "act"))).toEqual(expect.arrayContaining(["process_start", "process_poll", "process_cancel"]));
    expect(names(selectTools("Run the tests", catalog, "act"))).toContain("run_command");
    expect(names(selectTools("Delegate the review to a sub-agent", catalog, "act"))).toContain("spawn_agent");
  });

  it("keeps catalog order, never offers switch_to_act_mode, and passes unknown tools through", () => {
    const extended = [...catalog, tool("a_tool_routing_does_not_know", true)];
    const selected = names(selectTools("Run the tests", extended, "act"));
    expect(selected).toEqual(names(extended).filter((name) => selected.includes(name)));
    expect(selected).not.toContain("switch_to_act_mode");
    expect(selected).toContain("a_tool_routing_does_not_know");
  });

  it("offers run_command whatever the intents, in both tiers (routing trims, never disarms)", () => {
    for (const task of ["Rename add to plus everywhere", "Add a setup step to the README", "Set up git for this project", "Remember that I like tabs"]) {
      for (const tier of ["full", "compact"] as const) {
        const selected = names(selectTools(task, catalog, "act", tier));
        expect(selected, `${task} (${tier})`).toEqual(expect.arrayContaining(["read_file", "search_files", "replace_in_file", "run_command", "attempt_completion"]));
      }
    }
  });

  it("offers a command runner when no intent is recognized", () => {
    expect(names(selectTools("hello", catalog, "act"))).toContain("run_command");
  });

  it("only returns tools that exist in the catalog", () => {
    const small = [tool("read_file", true), tool("attempt_completion", true, "orchestrator")];
    expect(names(selectTools("Fix the bug and run the tests", small, "act"))).toEqual(["read_file", "attempt_completion"]);
  });
});

describe("selectTools (plan)", () => {
  it("keeps read-only tools, update_plan and switch_to_act_mode, and no mutating tool", () => {
    const selected = selectTools("Fix the bug and run the tests", catalog, "plan");
    expect(names(selected)).toEqual(["read_file", "list_dir", "search_files", "process_poll", "git_status", "git_diff", "attempt_completion", "update_plan", "recall", "switch_to_act_mode"]);
    expect(selected.filter((entry) => !entry.read_only).map((entry) => entry.name)).toEqual(["update_plan"]);
  });

  it("adds switch_to_act_mode when the catalog lacks it", () => {
    const selected = selectTools(
      "x",
      catalog.filter((entry) => entry.name !== "switch_to_act_mode"),
      "plan",
    );
    expect(names(selected)).toContain("switch_to_act_mode");
  });
});

describe("the code intelligence tools", () => {
  const withCode = [...catalog, tool("list_code_definitions", true), tool("code_map", true), tool("diagnostics", true)];
  const code = ["list_code_definitions", "code_map", "diagnostics"];

  it("are offered in the full tier, Act and Plan, and kept out of the compact tier's small window", () => {
    expect(names(selectTools("Fix the type error in src/app.ts", withCode, "act", "full"))).toEqual(expect.arrayContaining(code));
    expect(names(selectTools("Fix the type error in src/app.ts", withCode, "plan", "full"))).toEqual(expect.arrayContaining(code));
    // Routed like the other tools: a task about running tests alone does not pay for their docs.
    expect(names(selectTools("Make the failing test pass. Run the tests with `node --test` to check.", withCode, "act", "full")).filter((name) => code.includes(name))).toEqual([]);
    for (const mode of ["act", "plan"] as const) {
      const compact = names(selectTools("Fix the type error in src/app.ts", withCode, mode, "compact"));
      expect(compact.filter((name) => code.includes(name))).toEqual([]);
    }
  });
});
