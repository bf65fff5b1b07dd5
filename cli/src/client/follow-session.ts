import type { WsFrame } from "@aide/contracts";
import type { ApprovalPayload } from "./approval-view.js";
import { describeApproval } from "./approval-view.js";
import { openEventStream } from "./event-stream.js";
import type { GatewayClient } from "./gateway-client.js";
import { GatewayError } from "./gateway-error.js";
import type { LinePrompt } from "./line-prompt.js";
import { createProseFilter } from "./prose-filter.js";
import type { Spinner } from "./spinner.js";
import type { Style } from "./terminal-style.js";

export interface FollowOptions {
  client: GatewayClient;
  session: string;
  out: NodeJS.WritableStream;
  style: Style;
  spinner: Spinner;
  /** Present when a person can answer approvals here (a TTY). */
  prompt?: LinePrompt;
}

export interface Outcome {
  state: "done" | "unverified" | "failed" | "cancelled";
  exitCode: number;
}

interface AnyEvent {
  seq: number;
  type: string;
  payload: Record<string, any>;
}

/**
 * Streams a session to the terminal until its run ends: the model's text, each tool call, a
 * spinner while work is in progress, each approval asked at the prompt (or left to another
 * client when there is no terminal), then the outcome and a summary.
 */
export function followSession(options: FollowOptions): { outcome: Promise<Outcome>; abort(reason: string): Promise<void> } {
  const { client, session, out, style, spinner } = options;
  const asked = new Set<string>();
  let queue = Promise.resolve();
  let inText = false;
  let prose = createProseFilter();
  let proseRequest: string | undefined;
  let resolveOutcome!: (outcome: Outcome) => void;
  const outcome = new Promise<Outcome>((resolve) => (resolveOutcome = resolve));

  const write = (text: string) => {
    spinner.clear();
    if (inText) {
      out.write("\n");
      inText = false;
    }
    out.write(text + "\n");
  };

  async function decide(payload: ApprovalPayload): Promise<void> {
    write(describeApproval(payload, style));
    const prompt = options.prompt;
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

  function summary(payload: Record<string, any>): string {
    const list = (items: string[] | undefined) => (items && items.length > 0 ? items.join(", ") : "none");
    return [
      `  files changed: ${list(payload.files_changed)}`,
      `  commands run:  ${payload.commands_run ?? 0}`,
      `  checkpoints:   ${(payload.checkpoints ?? []).map((id: string) => id.slice(0, 10)).join(", ") || "none"}`,
      `  evidence:      ${list(payload.evidence)}`,
    ].join("\n");
  }

  function onEvent(event: AnyEvent) {
    const p = event.payload ?? {};
    switch (event.type) {
      case "model.delta": {
        if (proseRequest !== p.request_id) {
          prose = createProseFilter();
          proseRequest = p.request_id;
        }
        // Tool-call markup is left out: each call gets its own line when it starts.
        const text = prose.push(String(p.text));
        if (text.length === 0) return;
        // The spinner only ever runs on an empty line: clearing it must not erase streamed text.
        spinner.clear();
        out.write(text);
        inText = !text.endsWith("\n");
        return;
      }
      case "model.responded": {
        const rest = p.request_id === proseRequest ? prose.flush() : "";
        if (rest) {
          out.write(rest);
          inText = !rest.endsWith("\n");
        }
        return;
      }
      case "model.requested":
        if (!inText) spinner.start("thinking…");
        return;
      case "tool.started":
        write(style.cyan(`▸ ${p.tool}`) + style.dim(` ${JSON.stringify(p.args).slice(0, 160)}`));
        spinner.start(`${p.tool}…`);
        return;
      case "tool.completed":
        write((p.is_error ? style.red("  ✗ ") : style.green("  ✓ ")) + String(p.summary ?? "").slice(0, 400));
        return;
      case "approval.requested":
        if (asked.has(p.approval)) return;
        asked.add(p.approval);
        spinner.clear();
        queue = queue.then(() => decide(p as ApprovalPayload));
        return;
      case "checkpoint.created":
        write(style.dim(`  checkpoint ${String(p.checkpoint).slice(0, 10)} (${p.label})`));
        return;
      case "checkpoint.restored":
        write(style.yellow(`restored checkpoint ${String(p.checkpoint).slice(0, 10)}`));
        return;
      case "completion.rejected":
        write(style.yellow(`completion not accepted yet: ${(p.missing ?? []).join(", ")}`));
        return;
      case "run.completed":
        write((p.state === "done" ? style.green(style.bold("✔ done: ")) : style.yellow(style.bold("⚠ unverified: "))) + p.result);
        write(summary(p));
        resolveOutcome({ state: p.state, exitCode: p.state === "done" ? 0 : 3 });
        return;
      case "run.failed":
        write(style.red(style.bold(`✘ failed: ${p.error?.code}: ${p.error?.message}`)));
        resolveOutcome({ state: "failed", exitCode: 1 });
        return;
      case "run.cancelled":
        write(style.yellow(style.bold(`✘ cancelled: ${p.reason}`)));
        resolveOutcome({ state: "cancelled", exitCode: 130 });
        return;
      default:
        return;
    }
  }

  const stream = openEventStream({
    ...client.connection,
    session,
    onFrame(frame: WsFrame) {
      if (frame.type === "event" || frame.type === "approval.pending") onEvent(frame.event as unknown as AnyEvent);
      else if (frame.type === "error") {
        write(style.red(`${frame.error.code}: ${frame.error.message}`));
        resolveOutcome({ state: "failed", exitCode: 1 });
      }
    },
    onGiveUp(error) {
      write(style.red(`lost the event stream: ${error.message}`));
      resolveOutcome({ state: "failed", exitCode: 1 });
    },
  });
  void outcome.then(() => {
    spinner.clear();
    stream.close();
    options.prompt?.close();
  });
  return {
    outcome,
    async abort(reason) {
      try {
        await client.abort(session, reason);
      } catch (error) {
        write(style.red(`abort failed: ${(error as Error).message}`));
        resolveOutcome({ state: "cancelled", exitCode: 130 });
      }
    },
  };
}
