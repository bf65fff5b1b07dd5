import { ToolPreviewSchema, type ToolPreview } from "@aide/contracts";
import type { DecisionOutcome } from "../approvals/approval-waiter.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { requestApproval } from "./gate-approval.js";
import { errorOutcome } from "./call-outcomes.js";

export type CheckpointGate = { kind: "run"; note: string } | { kind: "stop"; outcome: CallOutcome };

export const proceededNote = "\n[Ran WITHOUT a checkpoint: none could be taken and the person chose to proceed; this change cannot be undone with a checkpoint restore.]";

/** What a person's answer to a "no checkpoint could be taken" approval means for the call. */
export function checkpointDecision(context: RunContext, decision: DecisionOutcome, reason: string): "retry" | "proceed" | CheckpointGate {
  switch (decision.decision) {
    case "approve":
      return decision.checkpoint === "proceed_without" ? "proceed" : "retry";
    case "abort":
      context.outcome = { kind: "aborted", reason: decision.feedback ?? "aborted by the person at an approval" };
      return { kind: "stop", outcome: errorOutcome("The person aborted the run.") };
    case "timeout":
      return { kind: "stop", outcome: errorOutcome(`Not run: no checkpoint could be taken (${reason}) and nobody decided in time (default deny).`, { denied: "timeout", checkpoint: "failed" }) };
    case "reject": {
      const feedback = decision.feedback ? ` Their feedback: ${decision.feedback}` : "";
      return { kind: "stop", outcome: errorOutcome(`Not run: no checkpoint could be taken (${reason}) and the person stopped this call.${feedback}`, { denied: "rejected", checkpoint: "failed" }) };
    }
    default: {
      const never: never = decision.decision;
      throw new Error(`unknown decision ${String(never)}`);
    }
  }
}

/** A preview to show with the approval when the original one is gone (a call resumed after a restart). */
export function minimalPreview(call: BatchCall): ToolPreview {
  return ToolPreviewSchema.parse({ call_id: call.id, name: call.name, kind: "other", mutating: true, args_digest: "" });
}

/**
 * Before the run's first mutation (once per run, durable across a restart): the checkpoint must be
 * taken, or the person must say to go on without it. When it fails (service down, disk full,
 * timeout) the call, auto-approved or already approved, is not run: a new approval states "no
 * checkpoint could be taken: <reason>" and waits for retry, proceed without, or stop.
 */
export async function requireCheckpoint(context: RunContext, call: BatchCall, preview: ToolPreview): Promise<CheckpointGate> {
  if (context.state.checkpointed) return { kind: "run", note: "" };
  // The index of the session's assistant message that asked for the mutation (for a child agent: the
  // parent's spawn_agent message): a task restore keeps what came before it.
  const messageIndex = context.session.record.transcript.length - 1;
  for (;;) {
    const attempt = await createCheckpoint(context, `before ${call.name}`, messageIndex);
    if (attempt.ok) return settled(context, call, "");
    const decision = await requestApproval(context, {
      call,
      preview,
      network: "none",
      networkTokens: [],
      needsProtectedConfirmation: false,
      checkpointFailure: attempt.error,
    });
    const meaning = checkpointDecision(context, decision, attempt.error.code);
    if (meaning === "proceed") return settled(context, call, proceededNote);
    if (meaning !== "retry") return meaning;
  }
}

async function settled(context: RunContext, call: BatchCall, note: string): Promise<CheckpointGate> {
  context.state.checkpointed = true;
  call.status = "approved";
  await context.persist();
  return { kind: "run", note };
}
