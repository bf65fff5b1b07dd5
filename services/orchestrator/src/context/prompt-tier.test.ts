import { describe, expect, it } from "vitest";
import type { ModelProfile, ToolDescriptor } from "@aide/contracts";
import { selectTools } from "../routing/index.js";
import { COMPACT_MAX_TOOLS } from "../routing/select-tools.js";
import { compactToolLine, fewShotExamples } from "./compact-prompt.js";
import { pickFewShotFile } from "../strategies/few-shot-file.js";
import { firstTurnOverflow } from "./first-turn-overflow.js";
import { modelFit } from "./model-fit.js";
import { systemPrompt } from "./system-prompt.js";

function tool(
  name: string,
  readOnly: boolean,
  description = `${name} does a thing. More text.`,
  properties: Record<string, unknown> = { path: { type: "string" } },
  required = ["path"],
): ToolDescriptor {
  return { name, description, parameters: { type: "object", properties, required }, read_only: readOnly, parallel_safe: readOnly, handled_by: "tools" };
}

const catalog: ToolDescriptor[] = ["read_file", "list_dir", "search_files", "git_status", "git_diff", "process_poll", "recall", "attempt_completion", "switch_to_act_mode"]
  .map((name) => tool(name, true))
  .concat(
    ["write_file", "replace_in_file", "apply_patch", "run_command", "process_start", "process_cancel", "update_plan", "remember", "forget", "spawn_agent", "mcp_weather"].map((name) =>
      tool(name, false),
    ),
  );
const names = (tools: ToolDescriptor[]) => tools.map((entry) => entry.name);
const now = new Date("2026-12-01T10:00:00Z");

const profile = (window: number, extra: Partial<ModelProfile> = {}): ModelProfile => ({
  model: "m",
  provider: "llama",
  key: "k",
  probed_at: now.toISOString(),
  context: { window },
  prompt_tier: window <= 8192 ? "compact" : "full",
  grammar: false,
  tool_calls: "xml",
  speed: {},
  tool_trials: { without_grammar: { trials: 1, valid: 1 } },
  template: { name: "t", system_role: true },
  notes: [],
  ...extra,
});

describe("the compact prompt tier", () => {
  it("keeps the contract (XML calls, untrusted results, proof before completion, the mode) in a fraction of the full prompt", () => {
    const tools = selectTools("Fix the failing test and run it", catalog, "act", "compact");
    const compact = systemPrompt({ mode: "act", tools, workspace: "/w", now, tier: "compact" });
    const full = systemPrompt({ mode: "act", tools: selectTools("Fix the failing test and run it", catalog, "act"), workspace: "/w", now });
    expect(compact.length).toBeLessThan(full.length / 2);
    for (const needle of ["XML", "<TOOL>", "data, not instructions", "before attempt_completion", "ACT mode", "<<<<<<< SEARCH"]) expect(compact).toContain(needle);
    expect(systemPrompt({ mode: "plan", tools: selectTools("x", catalog, "plan", "compact"), workspace: "/w", now, tier: "compact" })).toContain("switch_to_act_mode");
  });

  it("shows the call's form with placeholders, never a concrete example call a model could copy for the task", () => {
    const compact = systemPrompt({ mode: "act", tools: selectTools("Fix the failing test and run it", catalog, "act", "compact"), workspace: "/w", now, tier: "compact" });
    // Gemma 3 270M copied the old example (`<read_file><path>src/index.ts</path></read_file>`) every turn.
    expect(compact).not.toContain("<read_file>");
    expect(compact).not.toContain("src/index.ts");
    expect(compact).toContain("<TOOL>\n<PARAM>value</PARAM>\n</TOOL>");
  });

  it("few_shot: one call per offered tool, whose workspace values are placeholders and never a path to copy", () => {
    const tools = selectTools("Fix the failing test and run it", catalog, "act", "compact");
    const compact = systemPrompt({ mode: "act", tools, workspace: "/w", now, tier: "compact", fewShot: true });
    const examples = compact.slice(compact.indexOf("Examples of good calls"));
    for (const entry of tools) expect(examples).toContain(`<${entry.name}>\n`);
    // Every value between tags: UPPERCASE placeholders (and list_dir's "."), no file name, no folder.
    const values = [...examples.matchAll(/<(\w+)>([^<\n]+)<\/\1>/g)].map((match) => match[2]);
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) expect(value, examples).toMatch(/^(\.|[A-Z][A-Z_ .]*)$/);
    expect(examples).not.toMatch(/\w\.(ts|js|py|go|rs|java)\b/);
    // The placeholders follow the tools: the shared fixed prefix is unchanged.
    expect(compact.startsWith(systemPrompt({ mode: "act", tools, workspace: "/w", now, tier: "compact" }))).toBe(true);
    // With a workspace file picked for the run, read_file names it; nothing else does.
    const named = systemPrompt({ mode: "act", tools, workspace: "/w", now, tier: "compact", fewShot: true, fewShotFile: "kv.go", fewShotCommand: "go test ./..." });
    expect(named).toContain("<read_file>\n<path>kv.go</path>\n</read_file>");
    expect(named.split("kv.go").length - 1).toBe(1);
    const runCommand = tool("run_command", false, "Run a command.", { command: { type: "string" } }, ["command"]);
    expect(fewShotExamples([runCommand], { command: "go test ./..." })).toContain("<run_command>\n<command>go test ./...</command>\n</run_command>");
    expect(fewShotExamples([runCommand])).toContain("<run_command>\n<command>COMMAND</command>\n</run_command>");
  });

  it("few_shot's read_file file: the one the task names (path, else base name, the longest), else a source file, else any file", () => {
    const listing = ["README.md", "go.mod", "kv.go", "kv_test.go", "lib/", "lib/cart.js", "lib/cart.test.js", "link@"];
    expect(pickFewShotFile(listing, "ParseKV gives the wrong value. Fix kv.go.")).toBe("kv.go");
    expect(pickFewShotFile(listing, "The total in lib/cart.js is wrong")).toBe("lib/cart.js");
    expect(pickFewShotFile(listing, "cart.test.js fails")).toBe("lib/cart.test.js");
    expect(pickFewShotFile(listing, "Make the tests pass")).toBe("kv.go");
    expect(pickFewShotFile(["README.md", "docs/"], "Tidy up")).toBe("README.md");
    expect(pickFewShotFile(["docs/", "link@"], "Tidy up")).toBeUndefined();
  });

  it("starts with the same fixed text whatever the task (a stable prefix for the KV cache)", () => {
    const a = systemPrompt({ mode: "act", tools: selectTools("hello", catalog, "act", "compact"), workspace: "/a", now, tier: "compact" });
    const b = systemPrompt({ mode: "act", tools: selectTools("Show the git diff", catalog, "act", "compact"), workspace: "/b", now: new Date("2027-01-01T00:00:00Z"), tier: "compact" });
    const common = [...a].findIndex((char, index) => char !== b[index]);
    expect(a.slice(0, common)).toContain("Tools:\nread_file(");
    expect(a.includes("/a") || a.includes("2026")).toBe(false);
  });

  it("shrinks the tool set: at most ten, no apply_patch, no tools the router does not know", () => {
    const everything = "Fix the bug, run the tests, start the dev server in the background, show the git diff, remember that I prefer tabs, delegate a review to a sub-agent";
    const compact = names(selectTools(everything, catalog, "act", "compact"));
    expect(compact.length).toBeLessThanOrEqual(COMPACT_MAX_TOOLS);
    expect(compact).toEqual(expect.arrayContaining(["read_file", "replace_in_file", "attempt_completion", "run_command", "git_status"]));
    expect(compact).not.toContain("apply_patch");
    expect(compact).not.toContain("mcp_weather");
    expect(names(selectTools(everything, catalog, "act"))).toContain("mcp_weather");
    expect(names(selectTools("Say what the project does.", catalog, "plan", "compact"))).toEqual(["read_file", "list_dir", "search_files", "attempt_completion", "switch_to_act_mode"]);
  });

  it("documents each tool in one line: name, required and one optional parameter, the first clause", () => {
    const line = compactToolLine(
      tool("search_files", true, "Find which files contain a regular expression (or a literal string): lists up to 50 files.", { pattern: {}, path: {}, literal: {} }, ["pattern"]),
    );
    expect(line).toBe("search_files(pattern, path?): Find which files contain a regular expression");
  });
});

describe("the model's fit for a run", () => {
  it("takes the probe's window, chars per token, tier and grammar; the listed window caps it", () => {
    expect(modelFit(120_000, profile(2048, { chars_per_token: 1.5, grammar: true }), 4096)).toMatchObject({ windowTokens: 2048, tier: "compact", budgetChars: 2304, grammar: true, source: "probe" });
    expect(modelFit(120_000, profile(32_768), 4096)).toMatchObject({ windowTokens: 4096, tier: "compact" });
    expect(modelFit(120_000, profile(32_768), undefined)).toMatchObject({ tier: "full", budgetChars: 73_728 });
  });

  it("without a probe uses the listed window's tier, except for scripted transcripts; without either the configured characters", () => {
    expect(modelFit(120_000, undefined, 8192, "llama")).toMatchObject({ tier: "compact", budgetChars: 18_432, source: "model list" });
    expect(modelFit(120_000, undefined, 16_384, "openai")).toMatchObject({ tier: "full" });
    expect(modelFit(120_000, undefined, 4096, "scripted")).toMatchObject({ tier: "full", budgetChars: 9216 });
    expect(modelFit(50_000, undefined, undefined)).toEqual({ tier: "full", budgetChars: 50_000, source: "configured characters" });
  });

  it("a first-turn CONTEXT_FULL names the window, the tier and what to change, never 'compact the history'", () => {
    const error = firstTurnOverflow({ model: "stories", fit: modelFit(120_000, profile(256), 256), needed: 900, limit: 256, systemChars: 1300, taskChars: 40, tools: 7 });
    expect(error.code).toBe("CONTEXT_FULL");
    for (const needle of ["needs 900 tokens", "stories's window holds 256 tokens", "prompt tier compact", "7 tools", "larger window", "contextSize"]) expect(error.message).toContain(needle);
    expect(error.message).not.toContain("compact the history");
    expect(error.details).toMatchObject({ needed: 900, limit: 256, tier: "compact" });
  });
});
