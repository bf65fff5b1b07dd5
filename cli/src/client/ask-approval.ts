import { describeApproval, type ApprovalPayload } from "./approval-view.js";
import type { GatewayClient } from "./gateway-client.js";
import { GatewayError } from "./gateway-error.js";
import type { LinePrompt } from "./line-prompt.js";
import type { Style } from "./terminal-style.js";

export interface AskApprovalContext {
  client: GatewayClient;
  session: string;
  style: Style;
  /** Absent without a terminal: the approval is shown and left to another client. */
  prompt?: LinePrompt;
  write(text: string): void;
}

/**
 * Shows one approval and asks for the decision: approve (a protected path or network use needs a
 * typed "yes" as well), reject with feedback, or abort. A decision made elsewhere first wins.
 */
export async function askApproval(context: AskApprovalContext, payload: ApprovalPayload): Promise<void> {
  const { client, session, style, prompt, write } = context;
  write(describeApproval(payload, style));
  if (!prompt) {
    write(style.dim(`waiting for a decision from another client: aide approve ${session} --approval ${payload.approval}`));
    return;
  }
  for (;;) {
    const answer = (await prompt.ask("[a]pprove / [r]eject with feedback / a[b]ort? ")).toLowerCase();
    const decision = answer.startsWith("a") ? "approve" : answer.startsWith("r") ? "reject" : answer.startsWith("b") ? "abort" : undefined;
    if (!decision) continue;
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
    if (decision === "approve" && payload.network === "consent_required") {
      if ((await prompt.ask(style.yellow("Allow network access for this command? Type 'yes': "))) !== "yes") continue;
      request.consent_network = true;
    }
    try {
      await client.decide(request);
      write(style.dim(`→ ${decision}`));
    } catch (error) {
      if (error instanceof GatewayError && error.code === "APPROVAL_NOT_FOUND") write(style.dim("(already decided elsewhere)"));
      else write(style.red(`decision failed: ${(error as Error).message}`));
    }
    return;
  }
}
