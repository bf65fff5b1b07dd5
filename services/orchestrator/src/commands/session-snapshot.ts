import type { RunOutcomeSummary, SessionSnapshot } from "@aide/contracts";
import { isActive, type SessionRecord } from "../session/session-record.js";

/** A list's title of the task: its first non-empty line, at most 200 characters. */
export function taskTitle(task: string): string {
  const line =
    task
      .split("\n")
      .find((candidate) => candidate.trim() !== "")
      ?.trim() ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** How the last run ended, from the record's terminal state (set with its terminal event). */
function outcomeOf(record: SessionRecord): RunOutcomeSummary | undefined {
  switch (record.state) {
    case "done":
      return { state: "done", ...(record.result === undefined ? {} : { result: record.result }) };
    case "unverified":
      return { state: "unverified", ...(record.result === undefined ? {} : { result: record.result }), ...(record.evidence_missing ? { missing: record.evidence_missing } : {}) };
    case "error":
      return { state: "error", ...(record.failure ? { result: record.failure.message, error: record.failure } : record.result === undefined ? {} : { result: record.result }) };
    case "aborted":
      return { state: "aborted", ...(record.result === undefined ? {} : { result: record.result }) };
    default:
      return undefined;
  }
}

function timing(record: SessionRecord): Pick<SessionSnapshot, "run_started_at" | "run_ended_at" | "duration_ms"> {
  if (record.run_started_at === undefined) return {};
  const ended = isActive(record.state) ? undefined : record.run_ended_at;
  if (ended === undefined) return { run_started_at: record.run_started_at };
  const duration = Date.parse(ended) - Date.parse(record.run_started_at);
  return { run_started_at: record.run_started_at, run_ended_at: ended, ...(Number.isFinite(duration) && duration >= 0 ? { duration_ms: duration } : {}) };
}

/** The public view of a session (no transcript, no bodies). */
export function sessionSnapshot(record: SessionRecord): SessionSnapshot {
  const outcome = outcomeOf(record);
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
    task_title: taskTitle(record.task),
    model: record.model || record.served_model || "",
    ...timing(record),
    ...(outcome ? { outcome } : {}),
    files_changed: record.files_changed,
    ...(record.evidence ? { evidence: record.evidence } : {}),
    auto_approve: record.auto_approve,
  };
}
