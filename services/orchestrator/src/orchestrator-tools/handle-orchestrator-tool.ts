import { textApprovalPreview } from "../approvals/text-approval-preview.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { checkCompletion } from "../turn/check-completion.js";
import { requestApproval } from "../turn/gate-approval.js";
import { errorOutcome } from "../turn/run-tool-call.js";
import { approveMemoryChange, filesReadSoFar } from "./approve-memory-change.js";
import { parsePlanItems } from "./parse-plan-items.js";
import { spawnChildAgent } from "./spawn-child-agent.js";

function ok(output: string, metadata: Record<string, unknown> = {}): CallOutcome {
  return { is_error: false, output, metadata, changed_paths: [], notices: [] };
}

function text(call: BatchCall, name: string): string {
  const value = call.arguments[name];
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
}

async function switchToAct(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  const record = context.session.record;
  if (record.mode === "act") return ok("Already in Act mode.");
  const plan = text(call, "plan");
  const decision = await requestApproval(context, {
    call,
    preview: textApprovalPreview(call, { kind: "other", mutating: false, command: plan ? `Switch to Act mode with this plan:\n${plan}` : "Switch to Act mode" }),
    network: "none",
    networkTokens: [],
    needsProtectedConfirmation: false,
    kind: "mode_switch",
  });
  if (decision.decision === "abort") {
    context.outcome = { kind: "aborted", reason: decision.feedback ?? "aborted by the person" };
    return errorOutcome("The person aborted the run.");
  }
  if (decision.decision !== "approve") {
    const feedback = decision.feedback ? ` Feedback: ${decision.feedback}` : "";
    return errorOutcome(`The person did not approve switching to Act mode; stay in Plan mode.${feedback}`);
  }
  return applyActSwitch(context);
}

/** The approved switch: history is kept, the system contract is rebuilt, a mode notice goes into the next user message. */
export async function applyActSwitch(context: RunContext): Promise<CallOutcome> {
  const record = context.session.record;
  record.mode = "act";
  record.system = undefined;
  await context.session.emit("mode.changed", { mode: "act" }, context.depth, context.run);
  return ok("Switched to Act mode: you may now change files and run commands (each still needs approval unless a rule covers it).");
}

async function updatePlan(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  const parsed = parsePlanItems(call.arguments["items"]);
  if ("error" in parsed) return errorOutcome(parsed.error);
  context.session.record.plan = parsed.items;
  await context.session.emit("plan.updated", { items: parsed.items }, context.depth, context.run);
  return ok(`Plan updated (${parsed.items.length} steps).`);
}

function memoryFact(call: BatchCall): string | CallOutcome {
  const fact = text(call, "text").trim();
  if (fact === "") return errorOutcome("`text` is required: the fact to remember.");
  if (fact.length > 2_000) return errorOutcome("A memory is at most 2000 characters; store a shorter fact.");
  return fact;
}

/** `remember` is a mutation: the person approves the text (or an explicit memory rule does), then it is stored with its provenance. */
async function remember(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  const fact = memoryFact(call);
  if (typeof fact !== "string") return fact;
  const verdict = await approveMemoryChange(context, call, { action: "remember", text: fact });
  if (verdict.kind === "stop") return verdict.outcome;
  return storeMemory(context, call, fact, verdict.approvedBy, verdict.approval);
}

async function storeMemory(context: RunContext, call: BatchCall, fact: string, approvedBy: "person" | "rule", approval?: string): Promise<CallOutcome> {
  const id = context.seams.generateId();
  await context.seams.memory.remember({
    id,
    user: context.session.record.user,
    text: fact,
    created_at: context.seams.now().toISOString(),
    // The text is the model's even when a person approved it: it may have come from a file the run read.
    author: "agent",
    provenance: { session: context.session.record.id, run: context.run, approved_by: approvedBy, approval, files_read: filesReadSoFar(context) },
  });
  return ok(`Remembered (id ${id}).`, { memory: id, approved_by: approvedBy });
}

async function recall(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  const query = text(call, "query") || undefined;
  const memories = await context.seams.memory.recall(context.session.record.user, query, 8);
  if (memories.length === 0) return ok("No memories found.");
  return ok(memories.map((memory) => `- [${memory.id}] (${memory.author === "person" ? "the person wrote" : "an agent run wrote"}) ${memory.text}`).join("\n"), { count: memories.length });
}

/** `forget` deletes what later sessions would be told: approved like `remember`, showing the text it deletes. */
async function forget(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  const id = text(call, "id").trim();
  if (id === "") return errorOutcome("`id` is required: the memory id from recall.");
  const memory = await context.seams.memory.get(context.session.record.user, id);
  if (!memory) return errorOutcome(`No memory with id ${id}.`);
  const verdict = await approveMemoryChange(context, call, { action: "forget", id, text: memory.text });
  if (verdict.kind === "stop") return verdict.outcome;
  return deleteMemory(context, id);
}

async function deleteMemory(context: RunContext, id: string): Promise<CallOutcome> {
  const removed = await context.seams.memory.forget(context.session.record.user, id);
  return removed ? ok(`Forgot ${id}.`) : errorOutcome(`No memory with id ${id}.`);
}

/** A memory call the person approved before a restart: applied now, once (the approval was re-offered under its id). */
export async function applyApprovedMemoryCall(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  if (call.name === "forget") return deleteMemory(context, text(call, "id").trim());
  const fact = memoryFact(call);
  if (typeof fact !== "string") return fact;
  return storeMemory(context, call, fact, "person", call.approval);
}

export const memoryToolNames = new Set(["remember", "forget"]);

/** Tools the orchestrator runs itself: completion, mode switch, plan, memory, delegation. */
export async function handleOrchestratorTool(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  switch (call.name) {
    case "attempt_completion":
      return checkCompletion(context, text(call, "result"));
    case "switch_to_act_mode":
      return switchToAct(context, call);
    case "update_plan":
      return updatePlan(context, call);
    case "remember":
      return remember(context, call);
    case "recall":
      return recall(context, call);
    case "forget":
      return forget(context, call);
    case "spawn_agent":
      return spawnChildAgent(context, call);
    default:
      return errorOutcome(`No orchestrator tool named ${call.name}.`);
  }
}
