import { CompletionBudget, EvidenceLedger, asksAboutFailure, asksAboutWorkspace, asksQuestion, asksToRun, deriveEvidenceRequirements } from "../evidence/index.js";
import { LoopBreaker, MistakeCounter, RetryGuards, StallDetector } from "../guards/index.js";
import type { ToolLogEntry } from "../session/session-record.js";

/**
 * The per-run policy objects (part B's pure modules), created in one place. Their state is
 * in memory; after a restart it is rebuilt by replaying the durable tool log.
 */
export interface RunPolicies {
  required: ReturnType<typeof deriveEvidenceRequirements>;
  /** The task asks why something fails: a run showing the failure is its evidence (while nothing was changed). */
  failureIsAnswer: boolean;
  /** The task asks for something to be run: after a change, only a run after it is its execution evidence. */
  runAfterChange: boolean;
  /** The task is a question: its completion must say something (the answer). */
  answerRequired: boolean;
  /**
   * The task is a question about the workspace: its answer's names and numbers must come from what
   * the run read or ran (the answer audit); the task's text, the person's own words, is given with it.
   */
  answerFromWorkspace?: { task: string };
  ledger: EvidenceLedger;
  guards: RetryGuards;
  stall: StallDetector;
  mistakes: MistakeCounter;
  completion: CompletionBudget;
  /** The loop_breaker strategy's count of identical failures (consulted only when the run sets it). */
  loopBreaker: LoopBreaker;
}

/** The gate's options for a run from its task (the strategies' completion hooks may tighten them: run-strategies.ts). */
export function verdictOptions(policies: RunPolicies): { failureIsAnswer: boolean; runAfterChange: boolean; codeNeedsRun: boolean; answerRequired: boolean; answerFromWorkspace?: { task: string } } {
  return {
    failureIsAnswer: policies.failureIsAnswer,
    runAfterChange: policies.runAfterChange,
    codeNeedsRun: false,
    answerRequired: policies.answerRequired,
    ...(policies.answerFromWorkspace ? { answerFromWorkspace: policies.answerFromWorkspace } : {}),
  };
}

export function createRunPolicies(task: string, toolLog: ToolLogEntry[] = [], completionRejections = 0): RunPolicies {
  const policies: RunPolicies = {
    required: deriveEvidenceRequirements(task),
    failureIsAnswer: asksAboutFailure(task),
    runAfterChange: asksToRun(task),
    answerRequired: asksQuestion(task),
    ...(asksAboutWorkspace(task) ? { answerFromWorkspace: { task } } : {}),
    ledger: new EvidenceLedger(),
    guards: new RetryGuards(),
    stall: new StallDetector(),
    mistakes: new MistakeCounter(),
    completion: new CompletionBudget(),
    loopBreaker: new LoopBreaker(),
  };
  for (const entry of toolLog) replayEntry(policies, entry);
  for (let index = 0; index < completionRejections; index += 1) policies.completion.reject();
  return policies;
}

function replayEntry(policies: RunPolicies, entry: ToolLogEntry): void {
  policies.ledger.record(entry);
  const code = entry.metadata["error_code"];
  policies.loopBreaker.observe(
    { name: entry.tool, arguments: entry.args },
    { is_error: entry.is_error, output: entry.output, changed_paths: entry.changed_paths, ...(typeof code === "string" ? { error_code: code } : {}) },
  );
  if (["refused", "denied", "interrupted"].some((key) => entry.metadata[key] !== undefined)) return;
  const call = { name: entry.tool, arguments: stringArgs(entry.args) };
  policies.guards.record(call, { is_error: entry.is_error, changed_paths: entry.changed_paths, output: entry.output });
}

export function stringArgs(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) out[key] = typeof value === "string" ? value : JSON.stringify(value);
  return out;
}
