import type { ToolDescriptor } from "@aide/contracts";

function descriptor(
  name: string,
  description: string,
  properties: Record<string, { type: string; description: string }>,
  required: string[],
  flags: { read_only: boolean; parallel_safe: boolean },
): ToolDescriptor {
  return {
    name,
    description,
    parameters: { type: "object", properties, required, additionalProperties: false },
    ...flags,
    handled_by: "orchestrator",
  };
}

const state = { read_only: true, parallel_safe: false };
/** remember/forget outlive the session: mutations, gated like writes (approve-memory-change.ts). */
const memoryChange = { read_only: false, parallel_safe: false };

/** Tools the orchestrator runs itself (no workspace access); they override same-named catalog entries. */
export const orchestratorTools: ToolDescriptor[] = [
  descriptor(
    "attempt_completion",
    "Finish the task. Give the result; it is accepted only when this run's tool results prove the work (a successful change and a later check, a passing command, numbers copied from real output).",
    { result: { type: "string", description: "What was done and how it was verified." } },
    ["result"],
    state,
  ),
  descriptor(
    "switch_to_act_mode",
    "Plan mode only: ask the person to switch to Act mode so you can change files and run commands. Give your plan.",
    { plan: { type: "string", description: "The plan you will carry out in Act mode." } },
    [],
    state,
  ),
  descriptor(
    "update_plan",
    "Replace this session's plan. One step per line as `[pending] step`, `[in_progress] step` or `[completed] step` (or a JSON array of {step,status}); at most one in progress.",
    { items: { type: "string", description: "The plan steps with their status." } },
    ["items"],
    state,
  ),
  descriptor(
    "remember",
    "Store a short durable fact about the person's preferences or project for later sessions. The person approves the text first.",
    { text: { type: "string", description: "The fact, one or two sentences." } },
    ["text"],
    memoryChange,
  ),
  descriptor("recall", "List stored memories, newest first, optionally only those containing a word.", { query: { type: "string", description: "Optional substring filter." } }, [], {
    read_only: true,
    parallel_safe: true,
  }),
  descriptor("forget", "Delete one stored memory by id (the person approves it).", { id: { type: "string", description: "The memory id from recall." } }, ["id"], memoryChange),
  descriptor(
    "spawn_agent",
    "Delegate a bounded, independent sub-task to a child agent (at most 8 iterations; it cannot delegate). Read-only unless write is true.",
    {
      role: { type: "string", description: "The child's role, e.g. 'reviewer'." },
      task: { type: "string", description: "The exact task for the child." },
      write: { type: "boolean", description: "true to let the child change files (its changes still need approval)." },
    },
    ["role", "task"],
    { read_only: true, parallel_safe: true },
  ),
];

export const orchestratorToolNames = new Set(orchestratorTools.map((tool) => tool.name));

/** The catalog the loop routes from: the tools service's tools plus the orchestrator's own. */
export function mergeCatalog(serviceTools: ToolDescriptor[]): ToolDescriptor[] {
  const own = new Map(orchestratorTools.map((tool) => [tool.name, tool]));
  const merged = serviceTools.filter((tool) => !own.has(tool.name));
  return [...merged, ...orchestratorTools];
}
