import { jsonForScreen, terminalEventTypes, type WsFrame } from "@aide/contracts";
import { openEventStream } from "./event-stream.js";
import type { GatewayClient } from "./gateway-client.js";
import type { Outcome } from "./follow-session.js";

/** The last line of `aide run --json`. */
export interface RunSummaryLine {
  type: "summary";
  outcome: "done" | "unverified" | "failed" | "cancelled";
  exit_code: number;
  /** Absent when the run failed before a session existed (a refused workspace, no stack, a bad flag). */
  session?: string;
  run?: string;
  files_changed: string[];
  commands_run: number;
  checkpoints: string[];
  evidence: string[];
  error?: { code: string; message: string };
}

/**
 * The summary line of a run that ended before it had a session: a script reading `--json` gets
 * one last line in every case, with the code and the exit status it would otherwise have to
 * scrape from stderr.
 */
export function earlySummaryLine(exitCode: number, error: { code: string; message: string }): RunSummaryLine {
  return { type: "summary", outcome: "failed", exit_code: exitCode, files_changed: [], commands_run: 0, checkpoints: [], evidence: [], error };
}

interface StreamEvent {
  seq?: unknown;
  type?: unknown;
  run?: unknown;
  depth?: unknown;
  payload?: Record<string, any>;
}

/**
 * `aide run --json`: each event of the session as the gateway delivers it (the bus event,
 * already rendered by the orchestrator), one JSON object per line, from `since` on, then a
 * summary line; nothing else is written to `out`. A pending approval replayed on a reconnect
 * is written once (its event was, or will be, a line of its own).
 */
export function followSessionJson(options: { client: GatewayClient; session: string; run: string; since: number; out: NodeJS.WritableStream }): { outcome: Promise<Outcome> } {
  const { client, session, run, out } = options;
  const written = new Set<string>();
  let resolveOutcome!: (outcome: Outcome) => void;
  const outcome = new Promise<Outcome>((resolve) => (resolveOutcome = resolve));
  let finished = false;
  const line = (value: unknown) => out.write(jsonForScreen(JSON.stringify(value)) + "\n");
  const finish = (summary: RunSummaryLine) => {
    if (finished) return;
    finished = true;
    line(summary);
    resolveOutcome({ state: summary.outcome, exitCode: summary.exit_code });
  };
  const empty = { files_changed: [], commands_run: 0, checkpoints: [], evidence: [] };

  function onEvent(event: StreamEvent) {
    if (finished) return;
    const key = typeof event.seq === "number" ? String(event.seq) : JSON.stringify(event);
    if (written.has(key)) return;
    written.add(key);
    line(event);
    // Only this run's end ends the stream (not a child agent's, nor an earlier run's of a resumed session).
    if (!(terminalEventTypes as readonly string[]).includes(String(event.type))) return;
    if ((event.run !== undefined && event.run !== run) || (typeof event.depth === "number" && event.depth > 0)) return;
    const payload = event.payload ?? {};
    if (event.type === "run.completed") {
      const state = payload.state === "done" ? "done" : "unverified";
      finish({
        type: "summary",
        outcome: state,
        exit_code: state === "done" ? 0 : 3,
        session,
        run,
        files_changed: payload.files_changed ?? [],
        commands_run: payload.commands_run ?? 0,
        checkpoints: payload.checkpoints ?? [],
        evidence: payload.evidence ?? [],
      });
    } else if (event.type === "run.failed") {
      finish({ type: "summary", outcome: "failed", exit_code: 1, session, run, ...empty, ...(payload.error ? { error: payload.error } : {}) });
    } else {
      finish({ type: "summary", outcome: "cancelled", exit_code: 130, session, run, ...empty });
    }
  }

  const stream = openEventStream({
    ...client.connection,
    session,
    since: options.since,
    onFrame(frame: WsFrame) {
      if (frame.type === "event" || frame.type === "approval.pending") onEvent(frame.event as StreamEvent);
      else if (frame.type === "error") finish({ type: "summary", outcome: "failed", exit_code: 1, session, run, ...empty, error: frame.error });
    },
    onGiveUp(error) {
      finish({ type: "summary", outcome: "failed", exit_code: 1, session, run, ...empty, error: { code: "UNAVAILABLE", message: `lost the event stream: ${error.message}` } });
    },
  });
  void outcome.then(() => stream.close());
  return { outcome };
}
