import type { DecisionOutcome } from "./approval-waiter.js";
import type { ApprovalRecord, SessionRecord, SettledApproval } from "../session/session-record.js";

/** How many settled approvals a session keeps (its record must fit one KV value). */
export const maxSettledApprovals = 200;

/** Remembers that an approval stopped waiting, and why; the oldest entries go past the bound. */
export function recordSettled(record: SessionRecord, approval: ApprovalRecord, outcome: DecisionOutcome, now: Date): void {
  const decision = outcome.decision;
  const settledBy = outcome.source ?? (decision === "timeout" ? "timeout" : "person");
  const entry: SettledApproval = {
    id: approval.id,
    run: approval.run,
    decision,
    settled_by: settledBy,
    settled_at: now.toISOString(),
    expires_at: approval.expires_at,
  };
  const kept = record.settled_approvals.filter((settled) => settled.id !== approval.id);
  kept.push(entry);
  record.settled_approvals = kept.slice(-maxSettledApprovals);
}

/** A run ends (or a new one starts) with approvals still pending: each is settled as `run_end`. */
export function settlePendingAtRunEnd(record: SessionRecord, now: Date): void {
  for (const approval of record.approvals) {
    if (record.settled_approvals.some((settled) => settled.id === approval.id)) continue;
    recordSettled(record, approval, { decision: "abort", source: "run_end" }, now);
  }
  record.approvals = [];
}
