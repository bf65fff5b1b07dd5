import type { RunContext, LoopState } from "../run/run-context.js";
import { createRunPolicies } from "../run/run-policies.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";

export const childIterationLimit = 8;

function flag(value: unknown): boolean {
  return value === true || (typeof value === "string" && /^(true|yes|1)$/i.test(value.trim()));
}

/**
 * `spawn_agent`: a bounded child run (delegation) inside this process. It gets its own transcript,
 * at most eight iterations, no delegation tool, read-only tools unless write access was asked
 * for; its events go to the parent's session stream with `depth + 1`. Children are not durable:
 * after a restart the parent is told the delegation was interrupted.
 */
export async function spawnChildAgent(parent: RunContext, call: BatchCall): Promise<CallOutcome> {
  if (!parent.canDelegate) return { is_error: true, output: "A child agent cannot delegate.", metadata: {}, changed_paths: [], notices: [] };
  const role = String(call.arguments["role"] ?? "").trim() || "helper";
  const task = String(call.arguments["task"] ?? "").trim();
  if (task === "") return { is_error: true, output: "`task` is required: the exact task for the child agent.", metadata: {}, changed_paths: [], notices: [] };
  const write = flag(call.arguments["write"]);
  const childRun = parent.seams.generateId();
  await parent.session.emit("agent.spawned", { child_run: childRun, role, task, write }, parent.depth, parent.run);
  const state: LoopState = {
    transcript: [{ role: "user", content: `You are a ${role}. Your task:\n${task}\n\nFinish with attempt_completion and your findings.` }],
    batch: [],
    iterations: 0,
    tool_log: [],
    counters: { nudges: 0, mistakes: 0, completion_attempts: 0, commands_run: 0, compactions: 0, stall_warnings: 0 },
    checkpointed: parent.state.checkpointed,
    checkpoints: [],
    files_changed: [],
    automation_writes: [],
  };
  const child: RunContext = {
    ...parent,
    run: childRun,
    depth: parent.depth + 1,
    task,
    state,
    maxIterations: Math.min(childIterationLimit, parent.maxIterations),
    canDelegate: false,
    readOnlyAgent: !write,
    policies: createRunPolicies(task),
    logger: parent.logger.child({ child_run: childRun }),
    persist: async () => undefined,
    outcome: undefined,
  };
  const outcome = await parent.runChild(child);
  const state_ = outcome.kind === "done" ? "done" : outcome.kind === "unverified" ? "unverified" : outcome.kind === "aborted" ? "aborted" : "error";
  const result = outcome.kind === "done" || outcome.kind === "unverified" ? outcome.result : outcome.kind === "aborted" ? outcome.reason : outcome.message;
  await parent.session.emit("agent.completed", { child_run: childRun, state: state_, result }, parent.depth, parent.run);
  for (const path of state.files_changed) if (!parent.state.files_changed.includes(path)) parent.state.files_changed.push(path);
  for (const path of state.automation_writes) if (!parent.state.automation_writes.includes(path)) parent.state.automation_writes.push(path);
  parent.state.checkpoints.push(...state.checkpoints);
  parent.state.counters.commands_run += state.counters.commands_run;
  if (state.checkpointed) parent.state.checkpointed = true;
  return {
    is_error: outcome.kind !== "done",
    output: `Child agent (${role}) ended ${state_}:\n${result}`,
    metadata: { child_run: childRun, state: state_ },
    changed_paths: state.files_changed,
    notices: [],
  };
}
