import type { SessionSnapshot } from "@aide/contracts";
import { isActive, type SessionRecord } from "../session/session-record.js";

/** The public view of a session (no transcript, no bodies). */
export function sessionSnapshot(record: SessionRecord): SessionSnapshot {
  return {
    id: record.id,
    user: record.user,
    workspace: record.workspace,
    mode: record.mode,
    // A run waiting for its store or for disk space is still the same run; it shows as paused.
    state: record.paused && isActive(record.state) ? "paused" : record.state,
    run: record.run,
    task: record.task,
    iterations: record.iterations,
    last_seq: record.last_seq,
    approvals_pending: record.approvals.map((approval) => ({
      id: approval.id,
      call_id: approval.call_id,
      tool: approval.tool,
      requested_at: approval.requested_at,
      expires_at: approval.expires_at,
    })),
    created_at: record.created_at,
    updated_at: record.updated_at,
    result: record.result,
    ...(record.paused && isActive(record.state) ? { paused: record.paused } : {}),
  };
}
