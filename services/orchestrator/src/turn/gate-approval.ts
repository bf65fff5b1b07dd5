import type { InstructionsApproval, ToolPreview } from "@aide/contracts";
import type { DecisionOutcome } from "../approvals/approval-waiter.js";
import type { NetworkLevel } from "../approvals/approval-policy.js";
import { recordSettled } from "../approvals/settled-approvals.js";
import { sanitizeArgs } from "../events/sanitize-args.js";
import type { RunContext } from "../run/run-context.js";
import type { ApprovalRecord, BatchCall } from "../session/session-record.js";

/** An event must fit in one bus message: a huge diff is cut with an explicit marker, never silently. */
const maxDiffChars = 256_000;
function capDiff(diff: string | undefined): string | undefined {
  if (diff === undefined || diff.length <= maxDiffChars) return diff;
  return `${diff.slice(0, maxDiffChars)}\n[… diff cut here for the event: ${diff.length - maxDiffChars} more characters; see agent.tools.preview or the checkpoint diff for all of it]`;
}

export interface ApprovalRequest {
  call: BatchCall;
  preview: ToolPreview;
  network: NetworkLevel;
  networkTokens: string[];
  needsProtectedConfirmation: boolean;
  /** The model's own `requires_approval` hint: shown, never used to decide. */
  modelHint?: string;
  /** The checkpoint before this mutation failed: the person retries, proceeds without, or stops. */
  checkpointFailure?: { code: string; message: string };
  /** What kind of approval this is when not an ordinary tool call (memory, secret_read, mode_switch). */
  kind?: ApprovalKind;
  /** For `kind: memory`: the text the person approves (raw; clients render it). */
  memory?: { action: "remember" | "forget"; id?: string; text: string };
  /** For an MCP call: the server, the tool's own name and the exact arguments (raw JSON). */
  mcp?: { server: string; tool: string; arguments_json: string; hidden_characters?: number };
  /** For `kind: instructions`: the project instructions file as the person sees it (rendered). */
  instructions?: InstructionsApproval;
}

/** The feedback of an approval refused by `auto_approve.deny_unmatched` (the model reads it). */
export const denyUnmatchedFeedback = "refused by --deny-rest: not covered by the approval policy (auto_approve.deny_unmatched); do not retry it unchanged";

export type ApprovalKind = "tool" | "memory" | "secret_read" | "mode_switch" | "instructions";

/**
 * Step 5 (the waiting half): records a durable pending approval, publishes `approval.requested`
 * with the preview (diff or command text, protected and invisible flags, args digest), then waits
 * for the person's decision or the timeout (default-deny). The record is removed when decided,
 * so a decision applies exactly once.
 */
export async function requestApproval(context: RunContext, request: ApprovalRequest): Promise<DecisionOutcome> {
  const { seams, session } = context;
  const now = seams.now();
  const id = seams.generateId();
  const expiresAt = new Date(now.getTime() + (session.record.approval_timeout_ms ?? seams.config.approvalTimeoutMs)).toISOString();
  const payload = {
    approval: id,
    call_id: request.call.id,
    tool: request.call.name,
    args: sanitizeArgs(request.call.arguments),
    diff: capDiff(request.preview.diff),
    command: request.preview.command,
    ...(request.preview.scripts && request.preview.scripts.length > 0 ? { scripts: request.preview.scripts } : {}),
    ...(request.preview.scripts_digest !== undefined ? { scripts_digest: request.preview.scripts_digest } : {}),
    ...(request.preview.alternative !== undefined ? { alternative: request.preview.alternative } : {}),
    paths: request.preview.paths,
    protected: request.preview.protected,
    invisible: request.preview.invisible,
    network: request.network,
    args_digest: request.preview.args_digest,
    expires_at: expiresAt,
    model_hint: request.modelHint,
    ...(request.checkpointFailure ? { checkpoint_failed: request.checkpointFailure } : {}),
    kind: request.kind,
    memory: request.memory,
    ...(request.mcp ? { mcp: request.mcp } : {}),
    ...(request.instructions ? { instructions: request.instructions } : {}),
  };
  const record: ApprovalRecord = {
    id,
    run: context.run,
    call_id: request.call.id,
    tool: request.call.name,
    args_digest: request.preview.args_digest,
    requested_at: now.toISOString(),
    expires_at: expiresAt,
    network: request.network,
    network_tokens: request.networkTokens,
    needs_protected_confirmation: request.needsProtectedConfirmation,
    preview: request.preview,
    event_payload: payload,
    depth: context.depth,
    ...(request.checkpointFailure ? { checkpoint_failure: request.checkpointFailure } : {}),
  };
  session.record.approvals.push(record);
  request.call.status = "awaiting_approval";
  request.call.approval = id;
  session.record.state = "awaiting_approval";
  // The waiter exists before anyone can see the request, so an immediate decision is never lost.
  // Under `deny_unmatched` nobody is waited for: the request is published and refused at once.
  const decided = waitOrRefuse(context, id, expiresAt);
  await context.persist();
  if (context.depth > 0) await session.persist();
  await session.emit("approval.requested", payload, context.depth, context.run);
  await session.emit("run.state", { state: "awaiting_approval" }, context.depth, context.run);
  return settleDecision(context, record, decided);
}

/** The person's decision, or at once a refusal when the session's policy is `deny_unmatched`. */
function waitOrRefuse(context: RunContext, id: string, expiresAt: string): Promise<DecisionOutcome> {
  const { session } = context;
  if (session.record.auto_approve.deny_unmatched) return Promise.resolve({ decision: "reject", feedback: denyUnmatchedFeedback, source: "policy" });
  return session.waiter.wait(id, expiresAt, session.signal);
}

/** Records the decision: the pending record goes (exactly once), `approval.decided` is published. */
async function settleDecision(context: RunContext, record: ApprovalRecord, decided: Promise<DecisionOutcome>): Promise<DecisionOutcome> {
  const { session } = context;
  const outcome = await decided;
  session.record.approvals = session.record.approvals.filter((pending) => pending.id !== record.id);
  recordSettled(session.record, record, outcome, context.seams.now());
  if (session.record.approvals.length === 0 && session.record.state === "awaiting_approval") session.record.state = "running";
  await session.emit(
    "approval.decided",
    {
      approval: record.id,
      decision: outcome.decision,
      feedback: outcome.feedback,
      ...(record.checkpoint_failure && outcome.checkpoint ? { checkpoint: outcome.checkpoint } : {}),
      // Said on the record so every client shows the same network decision.
      ...(record.network === "consent_required" && outcome.decision === "approve" ? { network: outcome.consentNetwork === true } : {}),
      ...(record.tool === "instructions" && (outcome.decision === "approve" || outcome.decision === "reject") ? { instructions_answer: instructionsAnswerOf(outcome) } : {}),
      ...(outcome.decision === "approve" && outcome.alternative !== undefined && record.preview.alternative !== undefined
        ? { alternative: { id: outcome.alternative, command: record.preview.alternative.command } }
        : {}),
    },
    context.depth,
    context.run,
  );
  if (session.record.state === "running") await session.emit("run.state", { state: "running" }, context.depth, context.run);
  await context.persist();
  if (context.depth > 0) await session.persist();
  return outcome;
}

/** What a decision on an instructions approval means: approve trusts; reject is not this time unless it says never. */
export function instructionsAnswerOf(outcome: DecisionOutcome): "trust" | "not_this_time" | "never" {
  if (outcome.decision === "approve") return "trust";
  return outcome.decision === "reject" && outcome.instructionsAnswer === "never" ? "never" : "not_this_time";
}

/** Re-publishes a pending approval after a restart so clients offer it again (same id). */
export async function reofferApproval(context: RunContext, record: ApprovalRecord): Promise<DecisionOutcome> {
  const payload = record.event_payload as Parameters<typeof context.session.emit<"approval.requested">>[1];
  const decided = waitOrRefuse(context, record.id, record.expires_at);
  if (context.session.record.state !== "awaiting_approval") {
    context.session.record.state = "awaiting_approval";
    await context.persist();
  }
  await context.session.emit("approval.requested", payload, record.depth, record.run);
  return settleDecision(context, record, decided);
}
