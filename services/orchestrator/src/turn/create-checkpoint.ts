import { AideError, type ErrorBody, type ErrorCode } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";

export type CheckpointAttempt = { ok: true; id: string } | { ok: false; error: { code: ErrorCode; message: string } };

/**
 * Why a checkpoint could not be taken, as a code the person can act on: the service is down or
 * has no responder (CHECKPOINT_UNAVAILABLE), it did not answer in time (CHECKPOINT_TIMEOUT), the
 * disk is full (DISK_FULL); a code the service sent is kept; anything else is CHECKPOINT_FAILED.
 */
export function checkpointFailure(error: unknown): { code: ErrorCode; message: string } {
  if (!(error instanceof AideError)) return { code: "CHECKPOINT_FAILED", message: `The checkpoint failed: ${(error as Error).message}` };
  const body: ErrorBody = error.toBody();
  if (body.code === "UNAVAILABLE") {
    if (body.details?.["reason"] === "timeout") return { code: "CHECKPOINT_TIMEOUT", message: `The checkpoints service did not answer in time: ${body.message}` };
    return { code: "CHECKPOINT_UNAVAILABLE", message: `No checkpoint could be taken: ${body.message}` };
  }
  if (body.code === "INTERNAL") return { code: "CHECKPOINT_FAILED", message: `The checkpoint failed: ${body.message}` };
  return { code: body.code, message: body.message };
}

/**
 * Step 6: a checkpoint before the run's first mutation and after each approved mutation batch.
 * A failure or timeout is published as `checkpoint.failed` with its code; the caller decides what
 * a failure means (before a mutation: the person decides; after one: the run goes on).
 */
export async function createCheckpoint(context: RunContext, label: string, messageIndex: number, changedPaths?: string[]): Promise<CheckpointAttempt> {
  const { seams, session } = context;
  let diskFull = false;
  try {
    for (;;) {
      const started = performance.now();
      try {
        const checkpoint = await seams.checkpoints.commit({
          workspace: session.record.workspace,
          session: session.record.id,
          run: context.run,
          message_index: Math.max(0, messageIndex),
          label,
          changed_paths: changedPaths,
          timeout_ms: seams.config.checkpointTimeoutMs,
        });
        context.state.checkpoints.push(checkpoint.id);
        await session.emit(
          "checkpoint.created",
          { checkpoint: checkpoint.id, label, files_changed: checkpoint.files_changed, duration_ms: Math.round(performance.now() - started) },
          context.depth,
          context.run,
        );
        return { ok: true, id: checkpoint.id };
      } catch (error) {
        const failure = checkpointFailure(error);
        if (failure.code === "DISK_FULL" && !session.signal.aborted) {
          // A full disk is a pause, not a question for the person: the run waits (nothing runs,
          // nothing is re-run) and takes the checkpoint as soon as there is space again.
          if (!diskFull) {
            diskFull = true;
            context.logger.warn({ label }, "checkpoint on a full disk; the run pauses until there is space");
            await session.emit("checkpoint.failed", { error: failure }, context.depth, context.run);
            session.pause("disk_full", failure.message);
          }
          await sleepUnlessAborted(seams.config.diskFullRetryMs, session.signal);
          continue;
        }
        context.logger.warn({ err: error, label, code: failure.code }, "checkpoint failed");
        await session.emit("checkpoint.failed", { error: failure }, context.depth, context.run);
        return { ok: false, error: failure };
      }
    }
  } finally {
    if (diskFull) session.resume("disk_full");
  }
}

/** Waits `ms`, or less when the signal fires first (never rejects). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
