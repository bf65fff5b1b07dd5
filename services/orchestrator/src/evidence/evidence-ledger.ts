import type { EvidenceEvaluation, EvidenceEvent, EvidenceKind, UnbackedClaim } from "./evidence-kind.js";
import { answerSources, auditAnswer } from "./audit-answer.js";
import { auditClaims } from "./audit-claims.js";
import { EXECUTION_TOOLS, MUTATION_TOOLS, describeEvent as describe, exitCode, mutatedPaths, normalizePath, succeeded } from "./event-facts.js";
import { measurementNumbers, outputContainsNumber } from "./measurements.js";
import { recoveryInstruction, type Shortfall } from "./recovery-instruction.js";

/** What answers a question from the workspace; a child agent that ended `done` inspected it under its own gate. */
const INSPECTION_TOOLS = new Set(["read_file", "list_dir", "search_files", "git_status", "git_diff", "spawn_agent", "list_code_definitions", "code_map", "diagnostics"]);
/** What counts as verifying an earlier mutation (the minimum: a later read, git diff/status, execution, poll). */
const VERIFICATION_TOOLS = new Set(["read_file", "git_status", "git_diff", "run_command", "process_poll", "diagnostics"]);

const SOURCE_EXTENSION = /\.(py|js|mjs|cjs|ts|mts|tsx|jsx|sh|bash|rb|pl|php|go|rs|java|kt|c|cc|cpp|cs|swift|lua|r|jl|scala|dart|ex|exs|ps1)$/i;
const REPORT_PATH = /\.(md|markdown|txt|rst|html|htm|adoc|csv|json|pdf)$|report|results|summary|findings/i;
/** Files a build reads besides source code: a change to one runs or breaks like code. */
const BUILD_FILE =
  /(^|\/)(go\.mod|go\.sum|Cargo\.toml|Cargo\.lock|package\.json|pom\.xml|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|Makefile|GNUmakefile|CMakeLists\.txt|pyproject\.toml|setup\.cfg|tsconfig\.json|Dockerfile)$/;
/** Code or a build file: what a read back cannot show works. */
const isCode = (path: string) => SOURCE_EXTENSION.test(path) || BUILD_FILE.test(path);
/** What shows that changed code works: a run, or a type check that found no errors. */
const RUNS_CODE = new Set(["run_command", "process_poll", "diagnostics"]);

/**
 * How much of a call's output the durable tool log keeps (its end): command output 8 KB (numbers
 * copied into reports, diagnostics), other tools' output 512 characters, so the session record fits
 * in one KV value.
 */
export function loggedOutputChars(tool: string): number {
  return EXECUTION_TOOLS.has(tool) ? 8_000 : 512;
}

/**
 * Calls the loop refused (guards, plan mode, no consent), the person rejected, or skipped as a
 * duplicate never ran: they are neither evidence nor failures.
 */
function ranForReal(event: EvidenceEvent): boolean {
  const { metadata } = event;
  return metadata["refused"] !== true && metadata["skipped"] !== true && metadata["denied"] === undefined;
}

/**
 * The evidence of one run: every tool result in order. `evaluate` decides whether a completion is
 * backed by real events (the evidence table), and if not, what exactly the model must still do.
 * A textual claim is never evidence; only successful tool events of this run are.
 */
export class EvidenceLedger {
  private readonly events: EvidenceEvent[] = [];
  /** Calls that were proposed but never ran (rejected, refused, timed out): what the claims audit and the all-rejected rule cite. */
  private readonly notRun: EvidenceEvent[] = [];
  /** Each result's whole output when the log keeps only its end (the answer audit reads all of it). */
  private readonly fullOutputs = new WeakMap<EvidenceEvent, string>();
  /** A result replayed from the durable log whose output may have been cut: the answer audit cannot judge. */
  private outputsCut = false;
  /** What the run was shown besides tool results (the code map of its first prompt). */
  private readonly shown: string[] = [];

  /**
   * `fullOutput`: the call's whole output when `event.output` is the log's cut copy. Replayed
   * entries come without it; one that filled its log slot may have lost text.
   */
  record(event: EvidenceEvent, fullOutput?: string): void {
    // An MCP server's result is untrusted data from outside: it never proves a change, a run or a number.
    if (event.tool.startsWith("mcp__")) return;
    if (fullOutput !== undefined) this.fullOutputs.set(event, fullOutput);
    else if (event.output.length >= loggedOutputChars(event.tool)) this.outputsCut = true;
    const list = ranForReal(event) ? this.events : this.notRun;
    list.push(event);
    list.sort((left, right) => left.seq - right.seq);
  }

  /** Text the model was shown that names workspace things (the code map): an answer may cite it. */
  recordShown(text: string): void {
    if (text !== "") this.shown.push(text);
  }

  /**
   * `failureIsAnswer`: the task is a question about a failure (`asksAboutFailure`). While the run
   * changed nothing, a run that shows the failure (it ran and exited non-zero) answers it; once
   * anything was changed, the strict rules hold (a failing run never proves a change works).
   * `runAfterChange`: the task asks for something to be run (`asksToRun`); once the run changed a
   * file that runs or builds (not a report or a document), its execution requirement takes a
   * successful execution after that change, not an inspection (measured: SmolLM2 filled go.mod with junk on "add an -upper flag … go run . …
   * prints HELLO, BOB!", read it back, and the read passed as the run the task asked for).
   * `codeNeedsRun` (the code_needs_run setting; the default is the minimum, a later read):
   * a change to code or a build file is verified only by a run or a clean type check after it.
   * `answerRequired`: the task is a question (`asksQuestion`); a completion with no text answers
   * nothing, whatever the events (measured: SmolLM2 asked "Which environment variable sets the
   * folder …?" edited a readme, read it back, and sent an empty completion, which was accepted).
   */
  evaluate(
    required: EvidenceKind[],
    completionText: string,
    options: { failureIsAnswer?: boolean; runAfterChange?: boolean; codeNeedsRun?: boolean; answerRequired?: boolean; answerFromWorkspace?: { task: string } } = {},
  ): EvidenceEvaluation {
    const shortfalls: Shortfall[] = [];
    const evidence: string[] = [];
    const changed = this.successfulMutations().length > 0;
    const shown = options.failureIsAnswer === true && !changed ? this.failureShown() : undefined;
    const unresolved = shown === undefined ? this.unresolvedFailure() : undefined;
    if (shown !== undefined) evidence.push(`${describe(shown)} (shows the failure asked about)`);
    const needs = new Set(required);
    // A change made in any run must be checked, whatever the task asked for.
    if (changed) needs.add("artifact");
    if (shown !== undefined) needs.delete("execution");
    if (unresolved !== undefined && (needs.has("artifact") || needs.has("execution"))) needs.add("execution");
    const allRejected = this.allMutationsRejected();
    if (allRejected !== undefined) shortfalls.push(allRejected);
    const runnableChange = options.runAfterChange === true ? this.lastRunnableChange() : undefined;
    for (const kind of ["artifact", "execution", "source_file", "report", "measurements"] as const) {
      if (!needs.has(kind) || (kind === "artifact" && allRejected !== undefined)) continue;
      const check = this.check(kind, completionText, unresolved, runnableChange, options.codeNeedsRun === true);
      if (check.ok) evidence.push(...check.evidence);
      else shortfalls.push(check.shortfall);
    }
    if (options.answerRequired === true && completionText.trim() === "") shortfalls.push({ kind: "answer", detail: "empty" });
    const answer = options.answerFromWorkspace !== undefined ? this.auditAnswer(completionText, options.answerFromWorkspace.task) : undefined;
    if (answer !== undefined) shortfalls.push(answer.shortfall);
    const audit = auditClaims(completionText, { ran: this.events, notRun: this.notRun });
    if (audit.unbacked.length > 0) shortfalls.push({ kind: "claims", detail: "unbacked", claims: audit.reasons, summary: audit.summary });
    const missing = [...new Set(shortfalls.map((shortfall) => shortfall.kind))];
    return {
      satisfied: missing.length === 0,
      missing,
      instruction: missing.length === 0 ? "" : recoveryInstruction(shortfalls),
      evidence: [...new Set(evidence)],
      claims: [...audit.unbacked, ...(answer?.claims ?? [])],
    };
  }

  /**
   * `answerFromWorkspace` (a question about the workspace): the answer's specific names and numbers
   * must appear in what the run read or ran (`auditAnswer`). Undefined when they do, or when
   * replayed results may have lost text (after a restart) and nothing can be judged.
   */
  private auditAnswer(completionText: string, task: string): { shortfall: Shortfall; claims: UnbackedClaim[] } | undefined {
    if (this.outputsCut || completionText.trim() === "") return undefined;
    // Only what looked at the workspace: aide's own replies (a rejected completion quotes the names) are not sources.
    const looked = this.events.filter((event) => INSPECTION_TOOLS.has(event.tool) || EXECUTION_TOOLS.has(event.tool));
    // The files the run itself created or changed are facts of the run too (their names, not their text).
    const changed = this.events.filter((event) => succeeded(event)).flatMap((event) => mutatedPaths(event).concat(event.changed_paths));
    const sources = [...answerSources(looked, (event) => this.fullOutputs.get(event) ?? event.output), ...this.shown.map((text) => ({ text })), ...changed.map((text) => ({ text }))];
    const audit = auditAnswer(completionText, task, sources);
    if (audit.unbacked.length === 0) return undefined;
    const read = looked.map(describe);
    const shown = read.length === 0 ? "nothing was read or run in this run" : `what ran: ${read.slice(-6).join("; ")}`;
    const names = audit.unbacked.map((token) => token.text);
    return {
      shortfall: { kind: "answer", detail: "unbacked", names, shown },
      claims: audit.unbacked.map((token) => ({ kind: "answer", quote: token.text, events_show: `no file read or output of this run contains ${token.text}; ${shown}` })),
    };
  }

  /**
   * A run whose every proposed change was rejected, refused, timed out or failed changed nothing,
   * whatever the task: it can never end `done` (a run once claimed a fix that way).
   */
  private allMutationsRejected(): Shortfall | undefined {
    if (this.successfulMutations().length > 0) return undefined;
    const attempts = [...this.notRun, ...this.events].filter((event) => MUTATION_TOOLS.has(event.tool)).sort((left, right) => left.seq - right.seq);
    if (attempts.length === 0) return undefined;
    return { kind: "artifact", detail: "all_rejected", attempts: attempts.map(describe) };
  }

  private check(
    kind: EvidenceKind,
    completionText: string,
    unresolved: EvidenceEvent | undefined,
    runnableChange: EvidenceEvent | undefined,
    codeNeedsRun: boolean,
  ): { ok: true; evidence: string[] } | { ok: false; shortfall: Shortfall } {
    switch (kind) {
      case "artifact":
        return this.checkArtifact(codeNeedsRun);
      case "execution":
        return this.checkExecution(unresolved, runnableChange);
      case "source_file":
        return this.checkWritten(kind, (path) => SOURCE_EXTENSION.test(path), 0);
      case "report":
        return this.checkReport();
      case "measurements":
        return this.checkMeasurements(completionText);
      default: {
        const exhaustive: never = kind;
        throw new Error(`unknown evidence kind ${String(exhaustive)}`);
      }
    }
  }

  private successfulMutations(): EvidenceEvent[] {
    return this.events.filter((event) => succeeded(event) && mutatedPaths(event).length > 0 && (MUTATION_TOOLS.has(event.tool) || event.changed_paths.length > 0));
  }

  private checkArtifact(codeNeedsRun: boolean): { ok: true; evidence: string[] } | { ok: false; shortfall: Shortfall } {
    const mutations = this.successfulMutations();
    if (mutations.length === 0) return { ok: false, shortfall: { kind: "artifact", detail: "no_mutation" } };
    // code_needs_run: a change to code or a build file is verified by a run or a clean type check
    // after it; a read back, git_diff or git_status shows only that the text landed (measured:
    // Gemma and SmolLM2 under search_grammar edited go.mod on "… Fix words.go.", read it back, and
    // the later read alone made the run done).
    let unran: EvidenceEvent | undefined;
    for (const mutation of [...mutations].reverse()) {
      const paths = new Set(mutatedPaths(mutation));
      const code = codeNeedsRun && [...paths].some(isCode);
      const checks = this.events.filter((event) => event.seq > mutation.seq && succeeded(event) && VERIFICATION_TOOLS.has(event.tool) && this.verifies(event, paths));
      const verification = code ? checks.find((event) => RUNS_CODE.has(event.tool)) : checks[0];
      if (verification !== undefined) return { ok: true, evidence: [describe(mutation), describe(verification)] };
      if (code && unran === undefined && checks.length > 0) unran = mutation;
    }
    if (unran !== undefined) return { ok: false, shortfall: { kind: "artifact", detail: "code_not_run", paths: mutatedPaths(unran).filter(isCode) } };
    const last = mutations[mutations.length - 1];
    return { ok: false, shortfall: { kind: "artifact", detail: "no_verification", paths: mutatedPaths(last) } };
  }

  /**
   * A read verifies only the file it read, diagnostics only a file it type-checked (TypeScript,
   * pyright, go vet) and found no errors in (a syntax-only check where no checker is installed is
   * not a type check); git and executions verify the workspace.
   */
  private verifies(event: EvidenceEvent, paths: Set<string>): boolean {
    if (event.tool === "diagnostics" && (event.metadata["errors"] !== 0 || event.metadata["type_checked"] === false)) return false;
    if (event.tool !== "read_file" && event.tool !== "diagnostics") return true;
    // The tools service's own resolution of the path (workspace-relative) decides: a model that
    // reads back `/abs/workspace/a.py` or `./a.py` read the same file as `a.py`.
    const resolved = event.metadata["path"];
    const path = typeof resolved === "string" ? resolved : event.args["path"];
    return typeof path === "string" && paths.has(normalizePath(path));
  }

  private isExecution(event: EvidenceEvent): boolean {
    return EXECUTION_TOOLS.has(event.tool);
  }

  /** The last failed execution when no execution succeeded after it. */
  private unresolvedFailure(): EvidenceEvent | undefined {
    let failure: EvidenceEvent | undefined;
    for (const event of this.events) {
      if (!this.isExecution(event)) continue;
      if (succeeded(event)) failure = undefined;
      else failure = event;
    }
    return failure;
  }

  /**
   * The last execution, when it failed in a way that shows a failure: it ran to an exit code other
   * than 0 (not killed, not timed out, not "command not found" or "not executable").
   */
  private failureShown(): EvidenceEvent | undefined {
    const last = [...this.events].reverse().find((event) => this.isExecution(event));
    if (last === undefined || succeeded(last)) return undefined;
    const code = exitCode(last);
    const ranToExit = code !== undefined && code !== 0 && code !== 126 && code !== 127;
    return ranToExit && last.metadata["timed_out"] !== true && last.metadata["aborted"] !== true ? last : undefined;
  }

  /**
   * `after` (runAfterChange): the run's last change to a runnable file; then only a successful
   * execution at or after it counts, never an inspection (a command that made the change is
   * itself the run: "run write-rules.js").
   */
  private checkExecution(unresolved: EvidenceEvent | undefined, after?: EvidenceEvent): { ok: true; evidence: string[] } | { ok: false; shortfall: Shortfall } {
    if (unresolved !== undefined) {
      return { ok: false, shortfall: { kind: "execution", detail: "unresolved_failure", failure: describe(unresolved), output: unresolved.output } };
    }
    const execution = [...this.events].reverse().find((event) => (after === undefined || event.seq >= after.seq) && this.isExecution(event) && succeeded(event));
    if (execution !== undefined) return { ok: true, evidence: [describe(execution)] };
    if (after !== undefined) return { ok: false, shortfall: { kind: "execution", detail: "not_run_after_change", paths: mutatedPaths(after) } };
    const inspection = [...this.events].reverse().find((event) => INSPECTION_TOOLS.has(event.tool) && succeeded(event));
    if (inspection !== undefined) return { ok: true, evidence: [describe(inspection)] };
    return { ok: false, shortfall: { kind: "execution", detail: "nothing_run" } };
  }

  /**
   * The run's last successful change to a file that runs or builds (not a report or a document:
   * a report is written from a run, and running again does not check it).
   */
  private lastRunnableChange(): EvidenceEvent | undefined {
    const runnable = (path: string) => !REPORT_PATH.test(path) || SOURCE_EXTENSION.test(path);
    return [...this.successfulMutations()].reverse().find((event) => mutatedPaths(event).some(runnable));
  }

  private checkWritten(kind: "source_file" | "report", accepts: (path: string) => boolean, afterSeq: number): { ok: true; evidence: string[] } | { ok: false; shortfall: Shortfall } {
    const written = this.successfulMutations().find((event) => event.seq > afterSeq && mutatedPaths(event).some(accepts));
    if (written !== undefined) return { ok: true, evidence: [describe(written)] };
    return { ok: false, shortfall: { kind, detail: "not_written" } };
  }

  private checkReport(): { ok: true; evidence: string[] } | { ok: false; shortfall: Shortfall } {
    const firstExecution = this.events.find((event) => this.isExecution(event) && succeeded(event));
    if (firstExecution === undefined) return { ok: false, shortfall: { kind: "report", detail: "no_execution_before" } };
    const isReport = (path: string) => REPORT_PATH.test(path) && !SOURCE_EXTENSION.test(path);
    return this.checkWritten("report", isReport, firstExecution.seq);
  }

  private checkMeasurements(completionText: string): { ok: true; evidence: string[] } | { ok: false; shortfall: Shortfall } {
    const numbers = measurementNumbers(completionText);
    if (numbers.length === 0) return { ok: false, shortfall: { kind: "measurements", detail: "no_numbers" } };
    const outputs = this.events.filter((event) => this.isExecution(event) && succeeded(event));
    const evidence: string[] = [];
    const unbacked: string[] = [];
    for (const number of numbers) {
      const source = outputs.find((event) => outputContainsNumber(event.output, number));
      if (source === undefined) unbacked.push(number);
      else evidence.push(describe(source));
    }
    if (unbacked.length > 0) return { ok: false, shortfall: { kind: "measurements", detail: "unbacked", numbers: unbacked } };
    return { ok: true, evidence };
  }
}
