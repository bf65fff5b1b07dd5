import { aideError, commandRuleWithDigest, type DecisionRequest } from "@aide/contracts";
import { explainUnavailableApproval } from "../approvals/explain-unavailable-approval.js";
import { recordSettled } from "../approvals/settled-approvals.js";
import type { Orchestrator } from "../orchestrator.js";

/**
 * `agent.cmd.decision`: applies a person's decision to one pending approval of the session's
 * current run, exactly once. Approving a protected path needs `confirm_protected`; the approval
 * then stays pending so the person can confirm. A decision that cannot apply says why
 * (`explainUnavailableApproval`: already decided, expired, stale run, wrong session, unknown).
 */
export async function decideApproval(orchestrator: Orchestrator, request: DecisionRequest): Promise<{ accepted: boolean; state: string }> {
  const runtime = await orchestrator.load(request.session);
  const owner = orchestrator.ownerElsewhere(runtime);
  if (owner && orchestrator.seams.forward) return (await orchestrator.seams.forward(owner, "decision", request)) as { accepted: boolean; state: string };
  const pending = runtime.record.approvals.find((approval) => approval.id === request.approval);
  // Bound to this session's current run (or one of its child agents, depth > 0): the waiter only
  // holds approvals of the run in progress and is emptied when it ends.
  const ofCurrentRun = pending !== undefined && (pending.run === runtime.record.run || pending.depth > 0);
  const unavailable = () =>
    explainUnavailableApproval({
      record: runtime.record,
      approval: request.approval,
      pending,
      now: orchestrator.seams.now(),
      listSessions: () => orchestrator.seams.store.list(),
    });
  if (!pending || !ofCurrentRun || !runtime.waiter.has(pending.id)) throw await unavailable();
  if (request.decision === "approve" && pending.needs_protected_confirmation && request.confirm_protected !== true) {
    const paths = pending.preview.protected.map((flag) => `${flag.path} (${flag.reason})`).join(", ");
    throw aideError("APPROVAL_CONFIRMATION_REQUIRED", { approval: pending.id, detail: `it writes protected paths: ${paths}; send confirm_protected: true` });
  }
  if (request.decision === "approve" && pending.checkpoint_failure && request.checkpoint === undefined) {
    throw aideError("APPROVAL_CONFIRMATION_REQUIRED", {
      approval: pending.id,
      detail: `no checkpoint could be taken: ${pending.checkpoint_failure.message}; send checkpoint: "retry" or "proceed_without"`,
    });
  }
  checkInstructionsAnswer(request, pending.tool);
  checkAlternative(request, pending.preview.alternative?.id);
  const settled = runtime.waiter.settle(pending.id, {
    decision: request.decision,
    feedback: request.feedback,
    consentNetwork: request.consent_network === true,
    confirmProtected: request.confirm_protected === true,
    ...(pending.checkpoint_failure && request.checkpoint ? { checkpoint: request.checkpoint } : {}),
    ...(request.instructions_answer !== undefined ? { instructionsAnswer: request.instructions_answer } : {}),
    ...(request.alternative !== undefined ? { alternative: request.alternative } : {}),
    source: "person",
  });
  if (!settled) throw await unavailable();
  if (request.decision === "approve" && request.allow_script === true) {
    if (request.alternative !== undefined) allowAlternative(runtime.record.auto_approve, pending.preview.alternative?.rule);
    else allowScriptAsShown(runtime.record.auto_approve, pending.preview);
  }
  // Recorded at once (settleDecision records it again, same entry): a second decision racing this one is told "already decided".
  recordSettled(runtime.record, pending, { decision: request.decision, source: "person" }, orchestrator.seams.now());
  if (request.decision === "abort") runtime.abortController.abort("aborted by the person at an approval");
  return { accepted: true, state: request.decision === "abort" ? "aborted" : "running" };
}

/** `instructions_answer` only on an instructions approval, and only with the decision it means. */
function checkInstructionsAnswer(request: DecisionRequest, tool: string): void {
  const answer = request.instructions_answer;
  if (answer === undefined) return;
  const fail = (detail: string) => aideError("INSTRUCTIONS_ANSWER_INVALID", { answer, approval: request.approval, detail });
  if (tool !== "instructions") throw fail("it is not an approval of project instructions");
  if (request.decision === "approve" && answer !== "trust") throw fail(`approve means trust; send reject with ${answer}`);
  if (request.decision === "reject" && answer === "trust") throw fail("reject cannot trust; send approve");
  if (request.decision === "abort") throw fail("abort stops the run; send it without an instructions answer");
}

/** `alternative` only with `approve`, and only on an approval that offers that alternative. */
function checkAlternative(request: DecisionRequest, offered: string | undefined): void {
  const alternative = request.alternative;
  if (alternative === undefined) return;
  const fail = (detail: string) => aideError("APPROVAL_ALTERNATIVE_INVALID", { alternative, approval: request.approval, detail });
  if (request.decision !== "approve") throw fail(`only an approval runs an alternative; send ${request.decision} without it`);
  if (offered !== alternative) throw fail("this approval offers no such alternative");
}

/** "Approve without scripts and allow": the alternative's rule names the `--ignore-scripts` form (no workspace code runs, so no digest). */
function allowAlternative(autoApprove: { commands: string[] }, rule: string | undefined): void {
  if (rule === undefined) return;
  if (rule.length <= 200 && autoApprove.commands.length < 100 && !autoApprove.commands.includes(rule)) autoApprove.commands.push(rule);
}

/**
 * "Approve and allow while unchanged": the rule names the command and the digest of the scripts
 * the person was shown, so a changed script asks again. Nothing for an approval without scripts.
 */
function allowScriptAsShown(autoApprove: { commands: string[] }, preview: { command?: string; scripts_digest?: string }): void {
  if (preview.command === undefined || preview.scripts_digest === undefined) return;
  const rule = commandRuleWithDigest(preview.command, preview.scripts_digest);
  if (rule.length <= 200 && autoApprove.commands.length < 100 && !autoApprove.commands.includes(rule)) autoApprove.commands.push(rule);
}
