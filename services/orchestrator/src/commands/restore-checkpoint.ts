import { aideError, type RestoreRequest } from "@aide/contracts";
import type { Orchestrator } from "../orchestrator.js";
import { isActive } from "../session/session-record.js";

export type RestoreInput = RestoreRequest;

/**
 * `agent.cmd.restore`: files through the checkpoints service; the task (transcript) here, cut
 * back to the message the checkpoint follows. Refused while a run is active.
 */
export async function restoreCheckpoint(orchestrator: Orchestrator, input: RestoreInput) {
  const runtime = await orchestrator.load(input.session);
  const record = runtime.record;
  if (isActive(record.state) || runtime.running) throw aideError("ALREADY_RUNNING", { session: input.session });
  const result = await orchestrator.seams.checkpoints.restore({
    workspace: record.workspace,
    session: record.id,
    checkpoint: input.checkpoint,
    mode: input.mode,
    dry_run: input.dry_run,
    force: input.force,
  });
  let truncated = 0;
  const index = result.checkpoint.message_index;
  if (result.applied && input.mode !== "files" && index !== undefined && index < record.transcript.length) {
    truncated = record.transcript.length - index;
    record.transcript.splice(index);
  }
  if (result.applied) {
    await runtime.emit("checkpoint.restored", { checkpoint: input.checkpoint, mode: input.mode, truncated_messages: truncated });
    await runtime.persist();
  }
  return { plan: result.plan, applied: result.applied, truncated_messages: truncated };
}
