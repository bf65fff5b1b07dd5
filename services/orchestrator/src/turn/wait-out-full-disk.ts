/** A tool write that found the disk full: the run pauses, as on a checkpoint that found it full, until a try finds room. */
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { sleepUnlessAborted } from "./create-checkpoint.js";

/**
 * The tools that change files through a whole-file plan: a DISK_FULL from one of them left every
 * file as it was (each file is written whole or not at all; a plan cut short after one of several
 * files is refused on the next try, because that file no longer has its approved digest).
 */
const fileWriteTools = new Set(["write_file", "replace_in_file", "apply_patch"]);

/** DISK_FULL that proves nothing ran: the call journal could not record the call, or a file write found no room. */
function isRetryableDiskFull(call: BatchCall, outcome: CallOutcome): boolean {
  if (outcome.metadata["error_code"] !== "DISK_FULL") return false;
  const area = outcome.metadata["disk_area"];
  return area === "tools_state" || (area === "workspace" && fileWriteTools.has(call.name));
}

/**
 * A write or edit that found the disk full is not an answer for the model (it would only try
 * again, or give up on a task that needs nothing but space): the run pauses with reason
 * `disk_full`, said once as `run.state paused`, and tries the call again every
 * `diskFullRetryMs` until an answer is not DISK_FULL or the run stops; then it resumes and goes
 * on with that answer. Nothing that ran is run again. Each try has its own attempt id, because the
 * tools service answers a call id it has seen with the stored result; the approved digests go
 * with it, so a file that changed meanwhile is refused (APPROVAL_STALE), never overwritten.
 */
export async function waitOutFullDisk(context: RunContext, call: BatchCall, first: CallOutcome, attempt: (attemptId: string) => Promise<CallOutcome>): Promise<CallOutcome> {
  const { session, seams } = context;
  if (!isRetryableDiskFull(call, first) || session.signal.aborted) return first;
  context.logger.warn({ call: call.id, tool: call.name }, "a tool write found the disk full; the run pauses until there is space");
  session.pause("disk_full", `${call.name} could not write: the disk is full. The run goes on once there is space.`);
  try {
    for (let tries = 1; ; tries++) {
      await sleepUnlessAborted(seams.config.diskFullRetryMs, session.signal);
      if (session.signal.aborted) return first;
      const next = await attempt(`${call.id.slice(0, 96)}~disk-full-${tries}`);
      if (!isRetryableDiskFull(call, next)) return next;
    }
  } finally {
    session.resume("disk_full");
  }
}
