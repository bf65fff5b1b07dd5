import type { WsFrame } from "@aide/contracts";
import { describeApproval, type ApprovalPayload } from "../client/approval-view.js";
import { openEventStream } from "../client/event-stream.js";
import { createLinePrompt } from "../client/line-prompt.js";
import { parseArgs, stringOption } from "../client/parse-args.js";
import { reportError, requireStack } from "../client/require-stack.js";
import { createStyle } from "../client/terminal-style.js";

const usage = "usage: aide approve <session> [--approval ID] [--reject FEEDBACK | --abort] [--yes] [--confirm-protected] [--consent-network] [--checkpoint retry|proceed_without]";

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

/** `aide approve <session>`: shows the pending approval (diff or command) and decides it. */
export async function run(argv: string[]): Promise<number> {
  const { positionals, options } = parseArgs(argv, ["abort", "yes", "confirm-protected", "consent-network"]);
  const session = positionals[0];
  if (!session) {
    process.stderr.write(usage + "\n");
    return 2;
  }
  const client = requireStack();
  if (!client) return 1;
  const style = createStyle(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  try {
    const snapshot = await client.status(session);
    const wanted = stringOption(options, "approval") ?? snapshot.approvals_pending[0]?.id;
    if (!wanted) {
      process.stdout.write(`session ${session} has no pending approval (state ${snapshot.state})\n`);
      return 1;
    }
    const details = (await pendingApprovals(client.connection, session, snapshot.last_seq)).find((p) => p.approval === wanted);
    if (details) process.stdout.write(describeApproval(details, style) + "\n");
    const rejectFeedback = options.reject;
    let decision: "approve" | "reject" | "abort" = options.abort ? "abort" : rejectFeedback !== undefined ? "reject" : "approve";
    if (decision === "approve" && !options.yes) {
      if (!process.stdin.isTTY) {
        process.stderr.write("aide: no terminal to confirm at; pass --yes to approve\n");
        return 2;
      }
      const prompt = createLinePrompt(process.stdin, process.stdout);
      const answer = (await prompt.ask("[a]pprove / [r]eject / a[b]ort? ")).toLowerCase();
      prompt.close();
      decision = answer.startsWith("a") ? "approve" : answer.startsWith("b") ? "abort" : "reject";
    }
    const checkpoint = stringOption(options, "checkpoint");
    if (checkpoint !== undefined && checkpoint !== "retry" && checkpoint !== "proceed_without") {
      process.stderr.write(`aide: --checkpoint is retry or proceed_without, not ${checkpoint}\n`);
      return 2;
    }
    if (decision === "approve" && details?.checkpoint_failed && checkpoint === undefined) {
      process.stderr.write("aide: no checkpoint could be taken before this call; pass --checkpoint retry or --checkpoint proceed_without\n");
      return 2;
    }
    const result = await client.decide({
      session,
      approval: wanted,
      decision,
      ...(typeof rejectFeedback === "string" ? { feedback: rejectFeedback } : {}),
      ...(options["confirm-protected"] ? { confirm_protected: true } : {}),
      ...(options["consent-network"] ? { consent_network: true } : {}),
      ...(checkpoint !== undefined ? { checkpoint } : {}),
    });
    process.stdout.write(`${decision}: accepted=${result.accepted}, state ${result.state}\n`);
    return 0;
  } catch (error) {
    return reportError(error);
  }
}
