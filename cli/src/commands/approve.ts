import type { WsFrame } from "@aide/contracts";
import { renderForScreen } from "@aide/contracts";
import { approvalQuestion, decisionLabel, parseApprovalAnswer } from "../client/ask-approval.js";
import { describeApproval, type ApprovalPayload } from "../client/approval-view.js";
import { openEventStream } from "../client/event-stream.js";
import { createLinePrompt } from "../client/line-prompt.js";
import { reportError, requireStack } from "../client/require-stack.js";
import { createStyle } from "../client/terminal-style.js";
import { describeInstructionsApproval } from "../client/instructions-approval-view.js";

/** `aide approve`'s flags as the program parsed them (cli-program.ts). */
export interface ApproveFlags {
  approval?: string;
  /** `--reject` alone is true; `--reject "feedback"` the feedback. */
  reject?: string | true;
  abort?: boolean;
  yes?: boolean;
  confirmProtected?: boolean;
  network?: boolean;
  consentNetwork?: boolean;
  checkpoint?: "retry" | "proceed_without";
  /** For a project instructions approval: reject and remember it (`instructions_answer: "never"`). */
  never?: boolean;
}

/** The pending approvals of a session with their diffs: the stream re-sends them on connect. */
async function pendingApprovals(connection: { baseUrl: string; token: string }, session: string, since: number): Promise<ApprovalPayload[]> {
  const found: ApprovalPayload[] = [];
  await new Promise<void>((resolve) => {
    // The diff is a courtesy: decide without it if the stream is slow.
    const timer = setTimeout(() => {
      stream.close();
      resolve();
    }, 10_000);
    const stream = openEventStream({
      ...connection,
      session,
      since,
      maxReconnects: 2,
      onFrame(frame: WsFrame) {
        if (frame.type === "approval.pending") found.push((frame.event as { payload: ApprovalPayload }).payload);
        if (frame.type === "ready" || frame.type === "error") {
          clearTimeout(timer);
          stream.close();
          resolve();
        }
      },
      onGiveUp: () => resolve(),
    });
  });
  return found;
}

/**
 * `aide approve <session>`: shows the pending approval (diff or command) and decides it. A command
 * the policy marked `consent_required` is approved without network unless `--network` is given
 * (or "approve with network" is picked at the prompt): a plain approve never grants network.
 */
export async function run(session: string, options: ApproveFlags): Promise<number> {
  const client = requireStack();
  if (!client) return 1;
  const style = createStyle(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  try {
    const snapshot = await client.status(session);
    const wanted = options.approval ?? snapshot.approvals_pending[0]?.id;
    if (!wanted) {
      process.stdout.write(`session ${renderForScreen(session)} has no pending approval (state ${snapshot.state})\n`);
      return 1;
    }
    const details = (await pendingApprovals(client.connection, session, snapshot.last_seq)).find((p) => p.approval === wanted);
    const instructions = details?.kind === "instructions" && details.instructions !== undefined;
    if (details) process.stdout.write((instructions ? describeInstructionsApproval(details, style) : describeApproval(details, style)) + "\n");
    // Without the details the orchestrator's policy still decides; the flag is passed on as given.
    const networkLevel = details?.network ?? (options.network || options.consentNetwork ? "consent_required" : "none");
    const rejectFeedback = options.reject;
    let answer = {
      decision: (options.abort ? "abort" : rejectFeedback !== undefined || options.never ? "reject" : "approve") as "approve" | "reject" | "abort",
      network: Boolean(options.network || options.consentNetwork),
    };
    if (answer.decision === "approve" && !options.yes) {
      if (!process.stdin.isTTY) {
        process.stderr.write("aide: no terminal to confirm at; pass --yes to approve (and --network to allow network use)\n");
        return 2;
      }
      const prompt = createLinePrompt(process.stdin, process.stdout);
      const typed = await prompt.ask(approvalQuestion(networkLevel, "[r]eject"));
      prompt.close();
      answer = parseApprovalAnswer(typed, networkLevel) ?? { decision: "reject", network: false };
    }
    if (answer.network && networkLevel !== "consent_required") {
      process.stdout.write(style.dim("--network has no effect: this command does not ask for network access\n"));
      answer.network = false;
    }
    if (answer.decision === "approve" && networkLevel === "consent_required" && !answer.network) {
      process.stdout.write(style.yellow("approving without network (pass --network to allow it)\n"));
    }
    const checkpoint = options.checkpoint;
    if (answer.decision === "approve" && details?.checkpoint_failed && checkpoint === undefined) {
      process.stderr.write("aide: no checkpoint could be taken before this call; pass --checkpoint retry or --checkpoint proceed_without\n");
      return 2;
    }
    const result = await client.decide({
      session,
      approval: wanted,
      decision: answer.decision,
      ...(typeof rejectFeedback === "string" ? { feedback: rejectFeedback } : {}),
      ...(options.confirmProtected ? { confirm_protected: true } : {}),
      ...(answer.decision === "approve" && networkLevel === "consent_required" ? { consent_network: answer.network } : {}),
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      ...(options.never && answer.decision === "reject" ? { instructions_answer: "never" as const } : {}),
    });
    process.stdout.write(`${decisionLabel(answer, networkLevel)}: accepted=${result.accepted}, state ${result.state}\n`);
    return 0;
  } catch (error) {
    return reportError(error);
  }
}
