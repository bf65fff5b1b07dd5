import type { MessageRequestSchema } from "@aide/contracts";
import type { z } from "zod";
import type { Orchestrator } from "../orchestrator.js";
import { isActive } from "../session/session-record.js";

/**
 * `agent.cmd.message`: a follow-up from the person. During a run it enters the transcript before
 * the next model turn; otherwise it starts a new run of the same session.
 */
export async function sendMessage(orchestrator: Orchestrator, request: z.infer<typeof MessageRequestSchema>): Promise<{ run: string; state: "running" | "awaiting_approval" }> {
  const runtime = await orchestrator.load(request.session);
  const owner = orchestrator.ownerElsewhere(runtime);
  if (owner && orchestrator.seams.forward) return (await orchestrator.seams.forward(owner, "message", request)) as { run: string; state: "running" | "awaiting_approval" };
  const record = runtime.record;
  if (isActive(record.state)) {
    record.inbox.push(request.text);
    await runtime.emit("message.received", { text: request.text });
    await runtime.persist();
    return { run: record.run ?? "none", state: record.state as "running" | "awaiting_approval" };
  }
  const started = await orchestrator.start({
    task: request.text,
    mode: record.mode,
    workspace: record.workspace,
    session: record.id,
    user: record.user,
    model: record.model || undefined,
    auto_approve: record.auto_approve,
    ...(record.approval_timeout_ms === undefined ? {} : { approval_timeout_seconds: Math.ceil(record.approval_timeout_ms / 1000) }),
  });
  await runtime.emit("message.received", { text: request.text });
  return { run: started.run ?? "none", state: "running" };
}
