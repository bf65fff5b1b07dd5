import type { AutoApprove, AutoApproveChangeRequest } from "@aide/contracts";
import type { Orchestrator } from "../orchestrator.js";

/** As many command rules as `AutoApproveSchema` holds. */
const maxCommandRules = 100;

/**
 * `agent.cmd.auto_approve`: a person changes a session's rules while it lives, with `--auto-approve`
 * semantics (`edits` covers writes, a command rule covers the commands it names). The run reads
 * `record.auto_approve` at every call's gate, so the next matching call is auto-approved; a call
 * already waiting keeps waiting for its person. What the gate never lets a rule cover (protected
 * paths, invisible characters, network use: `decideGate`; secret reads: `gateSecretRead`; memory:
 * `approveMemoryChange`) stays out of reach: the request has no field for it, and `memory`, `all`
 * and `deny_unmatched` keep what the run was started with. Every screen learns the new rules from
 * `session.auto_approve_changed`.
 */
export async function changeAutoApprove(orchestrator: Orchestrator, request: AutoApproveChangeRequest): Promise<{ auto_approve: AutoApprove; seq?: number }> {
  const runtime = await orchestrator.load(request.session);
  const owner = orchestrator.ownerElsewhere(runtime);
  if (owner && orchestrator.seams.forward) return (await orchestrator.seams.forward(owner, "auto_approve", request)) as { auto_approve: AutoApprove; seq?: number };
  const rules = runtime.record.auto_approve;
  const removed = new Set((request.remove_commands ?? []).map(normalRule));
  const commands = rules.commands.filter((rule) => !removed.has(normalRule(rule)));
  for (const rule of (request.add_commands ?? []).map(normalRule)) {
    if (!commands.includes(rule) && commands.length < maxCommandRules) commands.push(rule);
  }
  const next: AutoApprove = { ...rules, edits: request.edits ?? rules.edits, commands };
  const changed = next.edits !== rules.edits || next.commands.join("\n") !== rules.commands.join("\n");
  if (changed) {
    runtime.record.auto_approve = next;
    await runtime.emit("session.auto_approve_changed", { auto_approve: next });
    await runtime.persist();
  }
  // Read together, after the persist: the rules as of the session's last event (other events may follow the announcement).
  return { auto_approve: runtime.record.auto_approve, seq: runtime.record.last_seq };
}

/** A rule as the gate reads it: words separated by one space. */
function normalRule(rule: string): string {
  return rule.trim().split(/\s+/).join(" ");
}
