import { textApprovalPreview } from "../approvals/text-approval-preview.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { requestApproval } from "../turn/gate-approval.js";
import { errorOutcome, refusal } from "../turn/run-tool-call.js";

export interface MemoryChange {
  action: "remember" | "forget";
  text: string;
  id?: string;
}

export type MemoryVerdict = { kind: "run"; approvedBy: "person" | "rule"; approval?: string } | { kind: "stop"; outcome: CallOutcome };

/**
 * Memories outlive the session and are handed to later runs, so writing or deleting one is a
 * mutation: refused in Plan mode and for read-only agents, auto-approved only by the session's
 * explicit `auto_approve.memory` rule (never by the read-only pass or the `edits` rule), and
 * otherwise put to the person with the memory's text.
 */
export async function approveMemoryChange(context: RunContext, call: BatchCall, change: MemoryChange): Promise<MemoryVerdict> {
  const record = context.session.record;
  if (record.mode === "plan") {
    return { kind: "stop", outcome: refusal(`${call.name} changes what later sessions are told and is not available in Plan mode.`) };
  }
  if (context.readOnlyAgent) return { kind: "stop", outcome: refusal(`${call.name} is not available: this agent was started read-only.`) };
  if (record.auto_approve.memory === true) {
    await context.session.emit("approval.decided", { approval: `auto-${call.id}`, decision: "auto" }, context.depth, context.run);
    return { kind: "run", approvedBy: "rule" };
  }
  const verb = change.action === "remember" ? "Remember for later sessions" : `Forget memory ${change.id ?? ""}`.trimEnd();
  const decision = await requestApproval(context, {
    call,
    preview: textApprovalPreview(call, { kind: "other", mutating: true, command: `${verb}: ${change.text}` }),
    network: "none",
    networkTokens: [],
    needsProtectedConfirmation: false,
    kind: "memory",
    memory: change,
  });
  switch (decision.decision) {
    case "approve":
      return { kind: "run", approvedBy: "person", approval: call.approval };
    case "abort":
      context.outcome = { kind: "aborted", reason: decision.feedback ?? "aborted by the person at an approval" };
      return { kind: "stop", outcome: errorOutcome("The person aborted the run.") };
    case "timeout":
      return { kind: "stop", outcome: errorOutcome(`Not done: nobody approved this ${change.action} in time (default deny).`, { denied: "timeout" }) };
    case "reject": {
      const feedback = decision.feedback ? ` Their feedback: ${decision.feedback}` : "";
      return { kind: "stop", outcome: errorOutcome(`The person rejected this ${change.action}; nothing was stored or deleted.${feedback}`, { denied: "rejected" }) };
    }
    default: {
      const never: never = decision.decision;
      throw new Error(`unknown decision ${String(never)}`);
    }
  }
}

const readTools = new Set(["read_file", "search_files", "list_dir"]);

/** What this run had read before the memory was written (from its tool log): the memory's likely sources. */
export function filesReadSoFar(context: RunContext): string[] {
  const paths = new Set<string>();
  for (const entry of context.state.tool_log) {
    if (!readTools.has(entry.tool) || entry.is_error) continue;
    const path = entry.metadata["path"] ?? entry.args["path"] ?? ".";
    if (typeof path === "string") paths.add(path);
  }
  return [...paths];
}
