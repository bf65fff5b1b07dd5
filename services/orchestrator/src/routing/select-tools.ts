import type { PromptTier, ToolDescriptor } from "@aide/contracts";
import { classifyIntents, type Intent } from "./classify-intents.js";

/**
 * Always offered in Act mode, whatever the intents (ARCHITECTURE §12: routing trims, never
 * disarms): the model can always look around, edit, run what proves its change, and finish.
 * Intents add specialist tools only.
 */
export const CORE_ACT_TOOLS: readonly string[] = ["read_file", "list_dir", "search_files", "write_file", "replace_in_file", "run_command", "attempt_completion"];

/** Tools each intent brings in on top of the core. */
const TOOLS_BY_INTENT: Record<Intent, string[]> = {
  artifacts: ["apply_patch"],
  execution: [],
  // Code intelligence for work on source code: their docs cost prompt tokens a small window needs elsewhere.
  source: ["apply_patch", "list_code_definitions", "code_map", "diagnostics"],
  reports: [],
  comparisons: [],
  processes: ["process_start", "process_poll", "process_cancel"],
  git: ["git_status", "git_diff"],
  memory: ["remember", "recall", "forget"],
  delegation: ["spawn_agent"],
};

/** Offered when no intent is recognized, so a vague request can still be investigated. */
const FALLBACK_TOOLS = ["git_status", "git_diff", "code_map"];

const ROUTED = new Set([...CORE_ACT_TOOLS, ...Object.values(TOOLS_BY_INTENT).flat(), "update_plan", "switch_to_act_mode"]);

/** The orchestrator's Plan-mode exit; added when the catalog does not carry its own. */
export const SWITCH_TO_ACT_MODE_TOOL: ToolDescriptor = {
  name: "switch_to_act_mode",
  description: "Plan mode only: ask the person to switch to Act mode so you can change files and run commands. Give your plan.",
  parameters: {
    type: "object",
    properties: { plan: { type: "string", description: "The plan you will carry out in Act mode." } },
    required: [],
    additionalProperties: false,
  },
  read_only: true,
  parallel_safe: false,
  handled_by: "orchestrator",
};

/**
 * The compact tier (windows up to 8k tokens) offers fewer tools: the same core, intents add only
 * what they need most (no apply_patch, process tools only for processes), and tools this router
 * does not know are left out (each costs prompt tokens a small window cannot spare).
 */
const COMPACT_BY_INTENT: Record<Intent, string[]> = {
  artifacts: [],
  execution: [],
  source: [],
  reports: [],
  comparisons: [],
  processes: ["process_start", "process_poll", "process_cancel"],
  git: ["git_status", "git_diff"],
  memory: ["remember", "recall", "forget"],
  delegation: ["spawn_agent"],
};
/** At most this many tools in the compact tier, kept in this order of priority. */
export const COMPACT_MAX_TOOLS = 10;
const COMPACT_PRIORITY = [
  ...CORE_ACT_TOOLS,
  "switch_to_act_mode",
  "git_status",
  "git_diff",
  "update_plan",
  "process_start",
  "process_poll",
  "process_cancel",
  "recall",
  "remember",
  "forget",
  "spawn_agent",
];
const COMPACT_PLAN_CORE = ["read_file", "list_dir", "search_files", "attempt_completion", "switch_to_act_mode"];
const COMPACT_PLAN_BY_INTENT: Partial<Record<Intent, string[]>> = { git: ["git_status", "git_diff"], memory: ["recall"], processes: ["process_poll"] };

function selectCompact(task: string, catalog: ToolDescriptor[], mode: "plan" | "act"): ToolDescriptor[] {
  const intents = classifyIntents(task);
  const wanted = new Set<string>(mode === "plan" ? COMPACT_PLAN_CORE : CORE_ACT_TOOLS);
  for (const intent of intents) for (const name of (mode === "plan" ? COMPACT_PLAN_BY_INTENT[intent] : COMPACT_BY_INTENT[intent]) ?? []) wanted.add(name);
  if (wantsPlan(task, intents)) wanted.add("update_plan");
  const kept = new Set(COMPACT_PRIORITY.filter((name) => wanted.has(name)).slice(0, COMPACT_MAX_TOOLS));
  const selected = catalog.filter((tool) => kept.has(tool.name) && (mode === "plan" || tool.name !== "switch_to_act_mode"));
  if (mode === "plan" && !selected.some((tool) => tool.name === "switch_to_act_mode")) selected.push(SWITCH_TO_ACT_MODE_TOOL);
  return selected;
}

function wantsPlan(task: string, intents: Intent[]): boolean {
  return /\b(plan|steps|step by step|todo|checklist)\b/i.test(task) || intents.length >= 3 || task.length > 400;
}

/**
 * Picks the catalog subset sent to the model from the request's intents. Act: the core workspace tools,
 * plus those the request's intents call for, plus any tool this router does not know. Plan: read-only
 * tools, `update_plan`, and `switch_to_act_mode`. Catalog order is kept. This only keeps the
 * model's choice small: authorization happens in the approval gate and the tools service.
 */
export function selectTools(task: string, catalog: ToolDescriptor[], mode: "plan" | "act", tier: PromptTier = "full"): ToolDescriptor[] {
  const own = catalog.filter((tool) => tool.handled_by !== "mcp");
  const mcp =
    mode === "act"
      ? selectMcpTools(
          task,
          catalog.filter((tool) => tool.handled_by === "mcp"),
          tier,
        )
      : [];
  return [...selectOwnTools(task, own, mode, tier), ...mcp];
}

function selectOwnTools(task: string, catalog: ToolDescriptor[], mode: "plan" | "act", tier: PromptTier): ToolDescriptor[] {
  if (tier === "compact") return selectCompact(task, catalog, mode);
  if (mode === "plan") {
    const selected = catalog.filter((tool) => (tool.read_only && tool.name !== "spawn_agent") || tool.name === "update_plan" || tool.name === "switch_to_act_mode");
    return selected.some((tool) => tool.name === "switch_to_act_mode") ? selected : [...selected, SWITCH_TO_ACT_MODE_TOOL];
  }
  const intents = classifyIntents(task);
  const wanted = new Set<string>(CORE_ACT_TOOLS);
  for (const intent of intents) for (const name of TOOLS_BY_INTENT[intent]) wanted.add(name);
  if (intents.length === 0) for (const name of FALLBACK_TOOLS) wanted.add(name);
  if (wantsPlan(task, intents)) wanted.add("update_plan");
  return catalog.filter((tool) => tool.name !== "switch_to_act_mode" && (wanted.has(tool.name) || !ROUTED.has(tool.name)));
}

/** How many MCP tools a turn shows at most: all of a few servers' tools fit, 80 of one server do not. */
export const MCP_TOOL_BUDGET: Record<PromptTier, number> = { full: 12, compact: 3 };

function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 3),
  );
}

/**
 * MCP tools (Act mode only: none is read-only). Within the budget all are offered; past it only
 * those the request is about: a tool whose server or name words the task mentions, best match
 * first, at most the budget. The rest stay callable by name once the task names them.
 */
export function selectMcpTools(task: string, tools: ToolDescriptor[], tier: PromptTier): ToolDescriptor[] {
  const budget = MCP_TOOL_BUDGET[tier];
  if (tools.length <= budget) return tools;
  const asked = words(task);
  const scored = tools
    .map((tool, index) => {
      const server = tool.mcp?.server ?? "";
      const nameWords = [...words((tool.mcp?.tool ?? tool.name).replace(/[_-]/g, " "))];
      const serverHit = server.split("-").some((part) => asked.has(part)) ? 1 : 0;
      const nameHits = nameWords.filter((word) => asked.has(word)).length;
      return { tool, index, score: nameHits * 2 + serverHit, nameHits };
    })
    .filter((entry) => entry.nameHits > 0 || (entry.score > 0 && tools.filter((t) => t.mcp?.server === entry.tool.mcp?.server).length <= budget));
  return scored
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, budget)
    .map((entry) => entry.tool);
}
