import { countEscapeTokens, escapeWarning, renderForScreen, renderUntrusted, renderUntrustedValue, type WsFrame } from "@aide/contracts";
import type { ApprovalPayload } from "./approval-view.js";
import { runSummary } from "./run-summary.js";
import { askApproval } from "./ask-approval.js";
import { openEventStream } from "./event-stream.js";
import type { GatewayClient } from "./gateway-client.js";
import type { LinePrompt } from "./line-prompt.js";
import { createProseFilter } from "./prose-filter.js";
import { describeProbeProgress } from "./probe-progress-view.js";
import type { Spinner } from "./spinner.js";
import type { Style } from "./terminal-style.js";
import { describeCheckpointDiff, describeCompletedTool, describeToolArgs, type CompletedToolView } from "./tool-output-view.js";
import { describeNewProblems, withoutDiagnosticsNote } from "./new-problems-view.js";

export interface FollowOptions {
  client: GatewayClient;
  session: string;
  out: NodeJS.WritableStream;
  style: Style;
  spinner: Spinner;
  /** Present when a person can answer approvals here (a TTY). */
  prompt?: LinePrompt;
  /** Follow from after this seq (a resumed session: its earlier runs are not shown again). */
  since?: number;
  /** Show each tool's output whole (as far as the event holds it) instead of its first lines. */
  verbose?: boolean;
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
  /** Calls whose diff the approval already showed: their step's changes are not shown again. */
  const diffShown = new Set<string>();
  /** The session's latest checkpoint, and the calls that succeeded since: the step the next one closes. */
  let lastCheckpoint: string | undefined;
  let stepCalls: string[] = [];
  /** The new problems the step's edits introduced (tool.completed metadata): shown under the step's diff. */
  let stepProblems: string[] = [];
  const flushProblems = () => {
    const problems = stepProblems;
    stepProblems = [];
    if (problems.length > 0) writeMarked(problems.join("\n"));
  };

  /** A step's changes (checkpoint before → after), fetched from the checkpoints service: events never carry write bodies. */
  async function showChanges(from: string, to: string): Promise<void> {
    try {
      const diff = await client.checkpointDiff(session, from, to);
      if (diff.files.length > 0) writeMarked(describeCheckpointDiff(diff, style));
    } catch (error) {
      write(style.dim(`  (the changes could not be shown: ${renderForScreen((error as Error).message)})`));
    }
  }
  let queue = Promise.resolve();
  let inText = false;
  let prose = createProseFilter();
  let proseRequest: string | undefined;
  let resolveOutcome!: (outcome: Outcome) => void;
  const outcome = new Promise<Outcome>((resolve) => (resolveOutcome = resolve));

  /** Characters shown as tokens in the model's text since its last warning line. */
  let proseEscapes = 0;
  const write = (text: string) => {
    spinner.clear();
    if (inText) {
      out.write("\n");
      inText = false;
    }
    if (proseEscapes > 0) {
      // Said once the prose stops, before anything else is shown.
      out.write(style.inverse(style.red(` ${escapeWarning(proseEscapes)} in the model's text `)) + "\n");
      proseEscapes = 0;
    }
    out.write(text + "\n");
  };

  /** A line of untrusted text, marked loudly when characters in it are shown as tokens. */
  const writeMarked = (text: string) => {
    write(text);
    const count = countEscapeTokens(text);
    if (count > 0) write(style.inverse(style.red(` ${escapeWarning(count)} `)));
  };

  let shown: Promise<void> = Promise.resolve();

  function onEvent(event: AnyEvent): void | Promise<void> {
    // Rendered again here: the terminal must not depend on the orchestrator having rendered it.
    // An approval keeps its raw fields: `describeApproval` renders what it shows.
    const p = (event.type === "approval.requested" ? event.payload : renderUntrustedValue(event.payload ?? {}).value) as Record<string, any>;
    switch (event.type) {
      case "model.delta": {
        if (proseRequest !== p.request_id) {
          prose = createProseFilter();
          proseRequest = p.request_id;
        }
        // Tool-call markup is left out: each call gets its own line when it starts.
        const text = prose.push(String(p.text));
        if (text.length === 0) return;
        proseEscapes += countEscapeTokens(text);
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
          proseEscapes += countEscapeTokens(rest);
        }
        return;
      }
      case "model.requested":
        if (!inText) spinner.start("thinking…");
        return;
      case "session.auto_approve_changed":
        // Another screen (the panel, the API) changed the rules this run now follows.
        spinner.clear();
        write(style.yellow(`auto-approve rules changed: edits ${p.auto_approve?.edits ? "on" : "off"}; commands: ${(p.auto_approve?.commands ?? []).join(", ") || "none"}`));
        return;
      case "model.probing":
        spinner.clear();
        write(style.dim(describeProbeProgress(p)));
        if (p.stage !== "done") spinner.start("probing the model…");
        return;
      case "tool.started":
        writeMarked(style.cyan(`▸ ${p.tool}`) + style.dim(` ${describeToolArgs(p.args)}`));
        spinner.start(`${p.tool}…`);
        return;
      case "tool.completed": {
        if (!p.is_error) stepCalls.push(String(p.call_id));
        // An edit's new problems go under its diff (from the metadata), not in the output lines.
        const diagnosed = !p.is_error && p.metadata?.diagnostics !== undefined;
        const view = diagnosed ? withoutDiagnosticsNote(p as CompletedToolView) : (p as CompletedToolView);
        writeMarked(describeCompletedTool(view, style, { verbose: options.verbose === true }));
        const problems = diagnosed ? describeNewProblems(p.metadata.diagnostics, style) : undefined;
        if (problems !== undefined) stepProblems.push(problems);
        return;
      }
      case "approval.requested":
        if (asked.has(p.approval)) return;
        asked.add(p.approval);
        if (p.diff !== undefined) diffShown.add(String(p.call_id));
        spinner.clear();
        queue = queue.then(() => askApproval({ client, session, style, prompt: options.prompt, write }, p as ApprovalPayload));
        return;
      case "memory.loaded":
        // Shown before the run works with them: an earlier agent run's notes are not the person's words.
        for (const memory of (p.memories ?? []) as Array<{ id: string; text: string; author: string; provenance?: { session: string } }>) {
          const who = memory.author === "person" ? "you saved" : `an earlier agent run wrote${memory.provenance ? ` (session ${memory.provenance.session})` : ""}, unverified`;
          write(style.yellow(`  memory ${memory.id} ${who}: `) + renderUntrusted(memory.text).text);
        }
        return;
      case "instructions.loaded":
        for (const file of (p.files ?? []) as Array<{ path: string; tokens: number; truncated: boolean; source: string }>) {
          const why = file.source === "trusted" ? "trusted by you" : file.source === "flag" ? "--trust-instructions" : file.source === "config" ? "config: instructions trust" : "the run's setting";
          write(style.yellow(`  project instructions ${file.path}`) + style.dim(` in the prompt (${file.tokens} tokens${file.truncated ? ", cut to the budget" : ""}; ${why})`));
        }
        return;
      case "instructions.skipped":
        for (const file of (p.files ?? []) as Array<{ path: string; reason: string }>) {
          write(style.dim(`  project instructions ${file.path} not loaded (${file.reason === "never" ? "you said never" : file.reason === "not_this_time" ? "not this time" : "ignored"})`));
        }
        return;
      case "checkpoint.created": {
        const from = lastCheckpoint;
        const to = String(p.checkpoint);
        lastCheckpoint = to;
        const line = style.dim(`  checkpoint ${to.slice(0, 10)} (${p.label})`);
        const step = stepCalls;
        stepCalls = [];
        // "after …" closes a step that changed files; its diff is shown unless the approval prompt showed it.
        const seen = step.length > 0 && step.every((call) => diffShown.has(call));
        if (from === undefined || !String(p.label).startsWith("after ") || seen) {
          flushProblems();
          return write(line);
        }
        return showChanges(from, to).then(() => {
          flushProblems();
          write(line);
        });
      }
      case "checkpoint.restored":
        write(style.yellow(`restored checkpoint ${String(p.checkpoint).slice(0, 10)}`));
        return;
      case "completion.rejected":
        write(style.yellow(`completion not accepted yet: ${(p.missing ?? []).join(", ")}`));
        return;
      case "run.state":
        // A paused run waits for its store or for disk space and resumes by itself: say so, and when it goes on.
        if (p.state === "paused") write(style.yellow(`⏸ paused (${p.reason ?? "waiting"}): ${p.detail ?? ""}; it resumes by itself`));
        return;
      case "run.completed":
        flushProblems();
        writeMarked((p.state === "done" ? style.green(style.bold("✔ done: ")) : style.yellow(style.bold("⚠ unverified: "))) + p.result);
        write(runSummary(p));
        resolveOutcome({ state: p.state, exitCode: p.state === "done" ? 0 : 3 });
        return;
      case "run.failed":
        flushProblems();
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
    ...(options.since !== undefined ? { since: options.since } : {}),
    onFrame(frame: WsFrame) {
      // One event at a time, in order: a step's diff is fetched before the next event is shown.
      shown = shown
        .then(() => {
          if (frame.type === "event" || frame.type === "approval.pending") return onEvent(frame.event as unknown as AnyEvent);
          if (frame.type === "error") {
            write(style.red(renderForScreen(`${frame.error.code}: ${frame.error.message}`)));
            resolveOutcome({ state: "failed", exitCode: 1 });
          }
        })
        .catch((error: unknown) => write(style.red(`could not show an event: ${renderForScreen((error as Error).message)}`)));
    },
    onGiveUp(error) {
      write(style.red(`lost the event stream: ${renderForScreen(error.message)}`));
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
        write(style.red(`abort failed: ${renderForScreen((error as Error).message)}`));
        resolveOutcome({ state: "cancelled", exitCode: 130 });
      }
    },
  };
}
