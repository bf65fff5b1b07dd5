import type { Mode } from "@aide/contracts";
import type { Orchestrator } from "../orchestrator.js";

/**
 * `agent.cmd.mode`: the person switches Plan/Act. History is kept; the system contract is rebuilt
 * and a mode notice goes into the next user message.
 */
export async function changeMode(orchestrator: Orchestrator, session: string, mode: Mode): Promise<{ mode: Mode }> {
  const runtime = await orchestrator.load(session);
  const owner = orchestrator.ownerElsewhere(runtime);
  if (owner && orchestrator.seams.forward) return (await orchestrator.seams.forward(owner, "mode", { session, mode })) as { mode: Mode };
  const record = runtime.record;
  if (record.mode !== mode) {
    record.mode = mode;
    record.system = undefined;
    record.pending_mode_notice = mode;
    await runtime.emit("mode.changed", { mode });
    await runtime.persist();
  }
  return { mode: record.mode };
}
