import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PromptTier, ToolDescriptor } from "@aide/contracts";
import { buildContext, mergeCatalog, selectTools, systemPrompt } from "@aide/orchestrator";
import { repoRoot } from "./results.js";

/** The real catalog: the tools service's schema snapshot plus the orchestrator's own tools. */
export function realCatalog(root = repoRoot): ToolDescriptor[] {
  const snapshot = JSON.parse(readFileSync(join(root, "services", "tools", "src", "framework", "__snapshots__", "tool-schemas.json"), "utf8")) as Array<
    Omit<ToolDescriptor, "read_only" | "parallel_safe" | "handled_by"> & Partial<ToolDescriptor>
  >;
  const readOnly = new Set(["read_file", "list_dir", "search_files", "git_status", "git_diff", "process_poll"]);
  return mergeCatalog(
    snapshot.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      read_only: tool.read_only ?? readOnly.has(tool.name),
      parallel_safe: tool.parallel_safe ?? readOnly.has(tool.name),
      handled_by: "tools" as const,
    })),
  );
}

export interface PromptScenario {
  name: string;
  mode: "plan" | "act";
  task: string;
}

export const promptScenarios: PromptScenario[] = [
  { name: "hello", mode: "act", task: "hello" },
  { name: "fix-and-test", mode: "act", task: "Fix the failing test in src/sum.js and run the tests." },
  { name: "plan-readme", mode: "plan", task: "Say what the project does." },
  {
    name: "every-intent",
    mode: "act",
    task: "Fix the bug in src/app.ts, run the tests, start the dev server in the background, show the git diff, remember that I prefer tabs, and delegate a review to a sub-agent; write a report.",
  },
];

/** The first turn's messages (system contract with environment, then the task) for one tier; `fewShot`: the few_shot strategy. */
export function firstTurn(scenario: PromptScenario, tier: PromptTier, catalog: ToolDescriptor[], fewShot = false) {
  const tools = selectTools(scenario.task, catalog, scenario.mode, tier);
  const now = new Date("2026-12-01T09:00:00Z");
  const system = systemPrompt({ mode: scenario.mode, tools, workspace: "/home/me/project", now, tier, ...(fewShot ? { fewShot } : {}) });
  const built = buildContext({
    system,
    memories: [],
    messages: [{ role: "user", content: scenario.task }],
    budgetChars: 1_000_000,
    environment: { workspace: "/home/me/project", mode: scenario.mode, now },
  });
  return { tools, system, messages: built.messages };
}
