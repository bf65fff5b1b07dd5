import { aideError } from "@aide/contracts";
import type { Orchestrator } from "../orchestrator.js";
import { isActive } from "../session/session-record.js";

/** `agent.cmd.abort`: ends the current run (pending approvals answered "abort", the model request aborted). */
export async function abortRun(orchestrator: Orchestrator, session: string, reason = "aborted by the person"): Promise<{ state: string }> {
  const runtime = await orchestrator.load(session);
  const owner = orchestrator.ownerElsewhere(runtime);
  if (owner && orchestrator.seams.forward) return (await orchestrator.seams.forward(owner, "abort", { session, reason })) as { state: string };
  if (!isActive(runtime.record.state) && !runtime.running) throw aideError("NOT_RUNNING", { session });
  runtime.abortController.abort(reason);
  runtime.waiter.cancelAll({ decision: "abort", feedback: reason, source: "run_end" });
  const running = runtime.running;
  if (running) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  return { state: runtime.record.state };
}
