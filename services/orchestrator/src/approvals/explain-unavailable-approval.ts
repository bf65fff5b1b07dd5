import { aideError, type AideError } from "@aide/contracts";
import type { ApprovalRecord, SessionRecord } from "../session/session-record.js";

export interface UnavailableApprovalInput {
  record: SessionRecord;
  approval: string;
  /** The pending record with this id, when the session still holds one. */
  pending?: ApprovalRecord;
  now: Date;
  /** Every session record (only read on this error path): is the id another session's? */
  listSessions: () => Promise<SessionRecord[]>;
}

function holds(record: SessionRecord, approval: string): boolean {
  return record.approvals.some((pending) => pending.id === approval) || record.settled_approvals.some((settled) => settled.id === approval);
}

/**
 * Why a decision cannot apply, as its own code: already decided, expired (default deny), its run
 * ended, it is another session's, or the id is unknown (`APPROVAL_NOT_FOUND`). The other session
 * is never named: the sender may not be its owner.
 */
export async function explainUnavailableApproval(input: UnavailableApprovalInput): Promise<AideError> {
  const { record, approval, pending, now } = input;
  const session = record.id;
  if (pending) {
    if (Date.parse(pending.expires_at) <= now.getTime()) return aideError("APPROVAL_EXPIRED", { approval, expires_at: pending.expires_at });
    if (pending.run !== record.run || (pending.depth === 0 && record.state !== "awaiting_approval" && record.state !== "running")) {
      return aideError("APPROVAL_STALE_RUN", { approval, session }, { run: pending.run });
    }
  }
  const settled = record.settled_approvals.find((entry) => entry.id === approval);
  if (settled) {
    switch (settled.settled_by) {
      case "timeout":
        return aideError("APPROVAL_EXPIRED", { approval, expires_at: settled.expires_at });
      case "run_end":
        return aideError("APPROVAL_STALE_RUN", { approval, session }, { run: settled.run });
      case "person":
      case "policy":
        return aideError("APPROVAL_ALREADY_DECIDED", { approval, decision: settled.decision, decided_at: settled.settled_at });
      default: {
        const never: never = settled.settled_by;
        throw new Error(`unknown settlement ${String(never)}`);
      }
    }
  }
  if (!pending) {
    const others = await input.listSessions().catch(() => []);
    if (others.some((other) => other.id !== session && holds(other, approval))) return aideError("APPROVAL_WRONG_SESSION", { approval, session });
  }
  return aideError("APPROVAL_NOT_FOUND", { approval, session });
}
