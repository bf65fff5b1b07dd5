import { renderForScreen } from "@aide/contracts";
import { describeApproval, type ApprovalPayload } from "./approval-view.js";
import type { GatewayClient } from "./gateway-client.js";
import { GatewayError } from "./gateway-error.js";
import type { LinePrompt } from "./line-prompt.js";
import type { Style } from "./terminal-style.js";
import { describeInstructionsApproval, instructionsQuestion, parseInstructionsAnswer } from "./instructions-approval-view.js";

export interface AskApprovalContext {
  client: GatewayClient;
  session: string;
  style: Style;
  /** Absent without a terminal: the approval is shown and left to another client. */
  prompt?: LinePrompt;
  write(text: string): void;
}

type Answer = { decision: "approve" | "reject" | "abort"; network: boolean };

/**
 * One answer to the approval prompt. For a command the policy marked `consent_required` the
 * person picks "approve without network" (`a`) or "approve with network" (`n`); a plain approve
 * never grants network.
 */
export function parseApprovalAnswer(answer: string, network: ApprovalPayload["network"]): Answer | undefined {
  const text = answer.trim().toLowerCase();
  if (text.startsWith("a")) return { decision: "approve", network: false };
  if (text.startsWith("n") && network === "consent_required") return { decision: "approve", network: true };
  if (text.startsWith("r")) return { decision: "reject", network: false };
  if (text.startsWith("b")) return { decision: "abort", network: false };
  return undefined;
}

/** The question the prompt asks: the network choice is offered only where the policy asks for it. */
export function approvalQuestion(network: ApprovalPayload["network"], rejectLabel = "[r]eject with feedback"): string {
  return network === "consent_required" ? `[a]pprove without network / approve with [n]etwork / ${rejectLabel} / a[b]ort? ` : `[a]pprove / ${rejectLabel} / a[b]ort? `;
}

/** How a decision reads back to the person, naming the network choice where there was one. */
export function decisionLabel(answer: Answer, network: ApprovalPayload["network"]): string {
  if (answer.decision !== "approve" || network !== "consent_required") return answer.decision;
  return answer.network ? "approve with network" : "approve without network";
}

/**
 * Shows one approval and asks for the decision: approve (a protected path needs a typed "yes" as
 * well; a network command is approved with or without network), reject with feedback, or abort.
 * A decision made elsewhere first wins.
 */
export async function askApproval(context: AskApprovalContext, payload: ApprovalPayload): Promise<void> {
  if (payload.kind === "instructions" && payload.instructions !== undefined) return askInstructions(context, payload);
  const { client, session, style, prompt, write } = context;
  write(describeApproval(payload, style));
  if (!prompt) {
    write(style.dim(`waiting for a decision from another client: aide approve ${session} --approval ${renderForScreen(payload.approval)}`));
    return;
  }
  for (;;) {
    const answer = parseApprovalAnswer(await prompt.ask(approvalQuestion(payload.network)), payload.network);
    if (!answer) continue;
    const { decision } = answer;
    const request: Parameters<GatewayClient["decide"]>[0] = { session, approval: payload.approval, decision };
    if (decision === "reject") request.feedback = (await prompt.ask("feedback for the model: ")) || undefined;
    if (decision === "approve" && (payload.protected ?? []).length > 0) {
      if ((await prompt.ask(style.red("This touches a protected path. Type 'yes' to approve anyway: "))) !== "yes") continue;
      request.confirm_protected = true;
    }
    if (decision === "approve" && payload.checkpoint_failed) {
      const choice = (await prompt.ask(style.red("No checkpoint: [r]etry it, or [p]roceed without one? "))).toLowerCase();
      if (!choice.startsWith("r") && !choice.startsWith("p")) continue;
      request.checkpoint = choice.startsWith("r") ? "retry" : "proceed_without";
    }
    if (decision === "approve" && payload.network === "consent_required") request.consent_network = answer.network;
    const alternative = decision === "approve" ? payload.alternative : undefined;
    if (alternative !== undefined) {
      const without = (await prompt.ask(`Run it as \`${renderForScreen(alternative.command)}\` instead, without lifecycle scripts? [y/N] `)).toLowerCase();
      if (without.startsWith("y")) request.alternative = alternative.id;
    }
    if (request.alternative !== undefined && alternative !== undefined) {
      const always = (await prompt.ask(`Also allow \`${renderForScreen(alternative.rule)}\` for the rest of the session? [y/N] `)).toLowerCase();
      if (always.startsWith("y")) request.allow_script = true;
    } else if (decision === "approve" && typeof payload.scripts_digest === "string" && (payload.scripts ?? []).length > 0) {
      const always = (await prompt.ask("Also allow this command for the rest of the session while its scripts stay as shown? [y/N] ")).toLowerCase();
      if (always.startsWith("y")) request.allow_script = true;
    }
    try {
      await client.decide(request);
      write(style.dim(`→ ${decisionLabel(answer, payload.network)}${request.alternative !== undefined ? " (without lifecycle scripts)" : ""}`));
    } catch (error) {
      if (error instanceof GatewayError && error.code === "APPROVAL_NOT_FOUND") write(style.dim("(already decided elsewhere)"));
      else write(style.red(`decision failed: ${renderForScreen((error as Error).message)}`));
    }
    return;
  }
}

/** A project instructions file: trust (remembered), not this time, never (remembered), or abort. */
async function askInstructions(context: AskApprovalContext, payload: ApprovalPayload): Promise<void> {
  const { client, session, style, prompt, write } = context;
  write(describeInstructionsApproval(payload, style));
  if (!prompt) {
    write(style.dim(`waiting for a decision from another client (the panel, or aide run --trust-instructions next time): approval ${renderForScreen(payload.approval)}`));
    return;
  }
  let answer: ReturnType<typeof parseInstructionsAnswer>;
  while ((answer = parseInstructionsAnswer(await prompt.ask(instructionsQuestion))) === undefined);
  const request: Parameters<GatewayClient["decide"]>[0] = {
    session,
    approval: payload.approval,
    decision: answer.decision,
    ...(answer.decision === "abort" ? {} : { instructions_answer: answer.answer }),
  };
  try {
    await client.decide(request);
    write(style.dim(`→ ${answer.decision === "abort" ? "abort" : answer.answer.replace(/_/g, " ")}`));
  } catch (error) {
    if (error instanceof GatewayError && error.code === "APPROVAL_NOT_FOUND") write(style.dim("(already decided elsewhere)"));
    else write(style.red(`decision failed: ${renderForScreen((error as Error).message)}`));
  }
}
