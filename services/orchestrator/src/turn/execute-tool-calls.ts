import { settingDefaults, type SchedulerId, type ToolDescriptor, type ToolPreview } from "@aide/contracts";
import { applyActSwitch, applyApprovedMemoryCall, handleOrchestratorTool, memoryToolNames } from "../orchestrator-tools/handle-orchestrator-tool.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { checkpointDecision, minimalPreview, proceededNote, requireCheckpoint } from "./require-checkpoint.js";
import { reofferApproval } from "./gate-approval.js";
import { recordEvidence } from "./record-evidence.js";
import { runMcpCall } from "../mcp/run-mcp-call.js";
import { emitCompleted, errorOutcome, execute, journalEgress, runToolCall } from "./run-tool-call.js";

const interruptedMessage =
  "INTERRUPTED: the orchestrator restarted while this call was running; its outcome is unknown and it was NOT run again. Check the workspace (read the file, run a status command) before repeating it.";

function isParallel(call: BatchCall, descriptor: ToolDescriptor | undefined): boolean {
  if (!descriptor || !descriptor.parallel_safe || !descriptor.read_only) return false;
  if (call.name === "spawn_agent") {
    const write = call.arguments["write"];
    return !(write === true || (typeof write === "string" && /^(true|yes|1)$/i.test(write.trim())));
  }
  return true;
}

/**
 * Consecutive parallel-safe read-only calls form one group; every other call is a group of one.
 * The `serial-v1` scheduler (an eval arm) makes every call a group of one.
 */
export function groupCalls(calls: BatchCall[], catalog: ToolDescriptor[], scheduler: SchedulerId = settingDefaults.scheduler): BatchCall[][] {
  const byName = new Map(catalog.map((tool) => [tool.name, tool]));
  const groups: BatchCall[][] = [];
  for (const call of calls) {
    const parallel = scheduler === "safe-parallel-v1" && isParallel(call, byName.get(call.name));
    const last = groups.at(-1);
    if (parallel && last && isParallel(last[0], byName.get(last[0].name))) last.push(call);
    else groups.push([call]);
  }
  return groups;
}

/** A call left over from before a restart: in flight → interrupted; awaiting a person → offered again. */
async function resumeCall(context: RunContext, call: BatchCall): Promise<CallOutcome | undefined> {
  if (call.status === "executing") {
    const outcome = errorOutcome(interruptedMessage, { interrupted: true });
    await emitCompleted(context, call, outcome, 0);
    return outcome;
  }
  if (call.status === "awaiting_approval") {
    const pending = context.session.record.approvals.find((approval) => approval.id === call.approval);
    if (!pending) {
      call.status = "queued";
      return undefined;
    }
    const decision = await reofferApproval(context, pending);
    if (pending.checkpoint_failure) return resumeCheckpointDecision(context, call, pending.preview, checkpointDecision(context, decision, pending.checkpoint_failure.code));
    if (decision.decision !== "approve") {
      if (decision.decision === "abort") context.outcome = { kind: "aborted", reason: decision.feedback ?? "aborted at an approval" };
      const why = decision.decision === "timeout" ? "nobody approved it in time (default deny)" : `the person chose ${decision.decision}`;
      const outcome = errorOutcome(`Not run: ${why}.${decision.feedback ? ` Feedback: ${decision.feedback}` : ""}`, { denied: decision.decision === "reject" ? "rejected" : decision.decision });
      await emitCompleted(context, call, outcome, 0);
      return outcome;
    }
    if (call.name === "switch_to_act_mode") return applyActSwitch(context);
    if (memoryToolNames.has(call.name)) {
      const outcome = await applyApprovedMemoryCall(context, call);
      await emitCompleted(context, call, outcome, 0);
      return outcome;
    }
    // Decided after a restart in the approval's other form: that command runs.
    const alternative = decision.alternative !== undefined ? pending.preview.alternative : undefined;
    if (alternative !== undefined) call.arguments = { ...call.arguments, command: alternative.command };
    call.status = "approved";
    call.network = pending.network === "consent_required" && decision.consentNetwork === true;
    call.expected_digests = pending.preview.file_digests;
    if (call.network && !(await journalEgress(context, call, alternative?.command ?? pending.preview.command ?? call.name, pending.network_tokens))) {
      return errorOutcome("Not run: the egress journal could not record this network use, so the command was not started.");
    }
  }
  if (call.status === "approved") {
    // A read approved before the restart (a secret-looking file) changes nothing: no checkpoint for it.
    const readOnly = context.catalog.find((tool) => tool.name === call.name)?.read_only === true;
    if (!readOnly) {
      const pending = context.session.record.approvals.find((approval) => approval.id === call.approval);
      const checkpoint = await requireCheckpoint(context, call, pending?.preview ?? minimalPreview(call));
      if (checkpoint.kind === "stop") return stopped(context, call, checkpoint.outcome);
    }
    return execute(context, call, { network: call.network, expectedDigests: call.expected_digests });
  }
  return undefined;
}

/** A "no checkpoint" approval decided after a restart: proceed, retry (maybe asking again), or stop. */
async function resumeCheckpointDecision(context: RunContext, call: BatchCall, preview: ToolPreview, meaning: ReturnType<typeof checkpointDecision>): Promise<CallOutcome> {
  if (meaning === "proceed") {
    context.state.checkpointed = true;
    call.status = "approved";
    await context.persist();
  } else if (meaning === "retry") {
    const checkpoint = await requireCheckpoint(context, call, preview);
    if (checkpoint.kind === "stop") return stopped(context, call, checkpoint.outcome);
  } else if (meaning.kind === "stop") return stopped(context, call, meaning.outcome);
  // The person consented to network use before the checkpoint failed: the journal entry still comes first.
  if (call.network && !(await journalEgress(context, call, preview.command ?? call.name, []))) {
    return stopped(context, call, errorOutcome("Not run: the egress journal could not record this network use, so the command was not started."));
  }
  const outcome = await execute(context, call, { network: call.network, expectedDigests: call.expected_digests });
  return meaning === "proceed" ? { ...outcome, output: outcome.output + proceededNote } : outcome;
}

async function stopped(context: RunContext, call: BatchCall, outcome: CallOutcome): Promise<CallOutcome> {
  await emitCompleted(context, call, outcome, 0);
  return outcome;
}

async function runOne(context: RunContext, call: BatchCall): Promise<CallOutcome> {
  const resumed = await resumeCall(context, call);
  if (resumed) return resumed;
  const descriptor = context.catalog.find((tool) => tool.name === call.name);
  if (!descriptor) {
    const outcome = errorOutcome(`No tool named ${call.name}.`);
    await emitCompleted(context, call, outcome, 0);
    return outcome;
  }
  if (descriptor.handled_by === "orchestrator") {
    if (call.name === "spawn_agent") {
      // A child may write: if this process dies mid-delegation the parent hears "interrupted", never a silent re-run.
      call.status = "executing";
      await context.persist();
    }
    const started = performance.now();
    const outcome = await handleOrchestratorTool(context, call);
    await emitCompleted(context, call, outcome, performance.now() - started);
    return outcome;
  }
  const outcome = descriptor.handled_by === "mcp" ? await runMcpCall(context, call, descriptor) : await runToolCall(context, call, descriptor);
  // Refusals and denials never reached `execute`; they still get their tool.completed.
  if (call.status !== "executing") await emitCompleted(context, call, outcome, 0);
  return outcome;
}

/** Why a call of the batch was never started (`tool.completed`'s `skipped`). */
type SkipReason = "earlier_call_rejected" | "run_ended" | "run_aborted";
const skipWords: Record<SkipReason, string> = {
  earlier_call_rejected: "an earlier call in this message was rejected",
  run_ended: "the run ended",
  run_aborted: "the run was aborted",
};

/**
 * Step 7, the scheduler: groups run in order; a group of parallel-safe reads runs concurrently;
 * mutations one at a time. Results keep the original order (each lands on its own call). After a
 * rejection, abort or accepted completion the rest of the batch is not run; each call of it gets a
 * `tool.completed` saying it was skipped and why (and the model reads the same). A batch that changed
 * files ends with a checkpoint of the changed paths.
 */
export async function executeToolCalls(context: RunContext): Promise<void> {
  const batch = context.state.batch;
  let stop: SkipReason | undefined;
  const groups = groupCalls(
    batch.filter((call) => call.status !== "done"),
    context.catalog,
    context.session.record.experiment?.scheduler,
  );
  for (const [index, group] of groups.entries()) {
    const skipped = stop ?? (context.session.signal.aborted ? "run_aborted" : undefined);
    if (skipped !== undefined) {
      // Each skipped call still gets its tool.completed, so a replay of the stream shows it existed.
      for (const call of group) {
        const outcome = errorOutcome(`Not run: ${skipWords[skipped]}.`, { skipped_because: skipped });
        await emitCompleted(context, call, outcome, 0);
        finish(context, call, outcome, false);
      }
      continue;
    }
    const outcomes = await Promise.all(group.map((call) => runOne(context, call)));
    group.forEach((call, position) => finish(context, call, outcomes[position], true));
    // The caller persists after the last group; in between, each finished group is made durable.
    if (index < groups.length - 1) await context.persist();
    if (context.outcome) stop = context.outcome.kind === "aborted" ? "run_aborted" : "run_ended";
    else if (outcomes.some((outcome) => outcome.metadata["denied"] === "rejected")) stop = "earlier_call_rejected";
  }
  const changed = [...new Set(batch.flatMap((call) => call.outcome?.changed_paths ?? []))];
  if (changed.length > 0 && context.outcome?.kind !== "aborted") {
    await createCheckpoint(context, `after ${[...new Set(batch.map((call) => call.name))].join(", ")}`, context.session.record.transcript.length, changed);
  }
}

/**
 * One call aide itself adds to the batch (the auto_test and prefix_failing_output strategies),
 * run through the same steps as a model's call: guards, preview, the approval gate, the checkpoint
 * rule, tool.started/completed. `record`: whether it goes into the evidence ledger, the retry guards
 * and the tool log like any call (a run before the model's first turn does not).
 */
export async function runAddedCall(context: RunContext, call: BatchCall, record: boolean): Promise<CallOutcome> {
  const outcome = await runOne(context, call);
  finish(context, call, outcome, record);
  return outcome;
}

function finish(context: RunContext, call: BatchCall, outcome: CallOutcome, record: boolean): void {
  call.status = "done";
  call.outcome = outcome;
  if (record) recordEvidence(context, call, outcome);
}
