import { AideError } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";

/**
 * Step 6: a checkpoint before the run's first mutation and after each approved mutation batch.
 * A failure or timeout is published as `checkpoint.failed`; the run goes on.
 */
export async function createCheckpoint(context: RunContext, label: string, messageIndex: number, changedPaths?: string[]): Promise<string | undefined> {
  const { seams, session } = context;
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
    return checkpoint.id;
  } catch (error) {
    const body =
      error instanceof AideError
        ? error.toBody()
        : { code: "CHECKPOINT_FAILED" as const, message: `The checkpoint failed: ${(error as Error).message}` };
    context.logger.warn({ err: error, label }, "checkpoint failed");
    await session.emit("checkpoint.failed", { error: { code: body.code, message: body.message } }, context.depth, context.run);
    return undefined;
  }
}

/** Before the first mutation of a run (once per run, durable across a restart). */
export async function checkpointBeforeFirstMutation(context: RunContext, toolName: string): Promise<void> {
  if (context.state.checkpointed) return;
  context.state.checkpointed = true;
  // The index of the session's assistant message that asked for the mutation (for a child agent: the
  // parent's spawn_agent message): a task restore keeps what came before it.
  const messageIndex = context.session.record.transcript.length - 1;
  await createCheckpoint(context, `before ${toolName}`, messageIndex);
  await context.persist();
}
