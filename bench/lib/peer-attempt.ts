/** What the peers bench gives a peer agent's attempt and what it takes back from it. */
import type { GroupRunResult } from "./process-group.js";
import type { PeerSandbox } from "./peer-sandbox.js";

export interface PeerAttemptInput {
  /** The agent's command (from the peers venv). */
  command: string;
  sandbox: PeerSandbox;
  prompt: string;
  /** The task's category: a question is answered in text, everything else by changed files. */
  category: string;
  /** The OpenAI-compatible endpoint up to /v1 (the counting proxy's route for this agent). */
  apiBase: string;
  /** The model name the endpoint answers to. */
  alias: string;
  budgetMs: number;
  signal: AbortSignal;
  /** The agent's output (both streams). */
  logFile: string;
}

export interface PeerAttemptOutput {
  /** How the agent ended, in its own terms (aider: edited / no-edit; mini-swe-agent: its exit status), or timeout / stopped / exit-N. */
  outcome: string;
  /** Whether the agent said it had succeeded: aider applied an edit (or answered a question), mini-swe-agent submitted. */
  claimed: boolean;
  /** The text a question is judged on. */
  answer: string;
  run: GroupRunResult;
}

/** The outcome word of a run that did not end by itself. */
export function endedBy(run: GroupRunResult): string | undefined {
  if (run.startError !== undefined) return "could-not-start";
  if (run.aborted) return "stopped";
  if (run.timedOut) return "timeout";
  return undefined;
}
