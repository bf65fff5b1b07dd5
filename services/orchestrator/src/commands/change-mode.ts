import type { Mode } from "@aide/contracts";
import type { Orchestrator } from "../orchestrator.js";
import { decideApproval } from "./decide-approval.js";

/**
 * `agent.cmd.mode`: the person switches Plan/Act. History is kept; the system contract is rebuilt
 * and a mode notice goes into the next user message. While the model's own request to switch to
 * Act (`switch_to_act_mode`, an approval of kind `mode_switch`) waits, choosing Act is that
 * approval's answer: it is approved and the run applies the switch (one `approval.decided`, one
 * `mode.changed`), instead of switching beside a request the run would still wait on.
 */
export async function changeMode(orchestrator: Orchestrator, session: string, mode: Mode): Promise<{ mode: Mode; seq?: number }> {
  const runtime = await orchestrator.load(session);
  const owner = orchestrator.ownerElsewhere(runtime);
  if (owner && orchestrator.seams.forward) return (await orchestrator.seams.forward(owner, "mode", { session, mode })) as { mode: Mode; seq?: number };
  const record = runtime.record;
  if (mode === "act" && record.mode === "plan") {
    const request = record.approvals.find((approval) => approval.event_payload["kind"] === "mode_switch" && approval.run === record.run && runtime.waiter.has(approval.id));
    if (request) {
      await decideApproval(orchestrator, { session, approval: request.id, decision: "approve" });
      // The run emits mode.changed when it takes the switch: this seq is before it, so that event still wins.
      return { mode: "act", seq: record.last_seq };
    }
  }
  if (record.mode !== mode) {
    record.mode = mode;
    record.system = undefined;
    record.pending_mode_notice = mode;
    await runtime.emit("mode.changed", { mode });
    await runtime.persist();
  }
  return { mode: record.mode, seq: record.last_seq };
}
