import type { FileChange, ToolContext } from "../framework/tool-types.js";
import type { Diagnostic } from "./diagnostic.js";
import { newDiagnostics } from "./new-diagnostics.js";
import type { CheckerSet } from "./checker-set.js";

const maxShown = 10;

export function formatDiagnostic(path: string, diagnostic: Diagnostic): string {
  return `  ${path}:${diagnostic.line}:${diagnostic.column} ${diagnostic.code} ${diagnostic.message}`;
}

export interface EditFeedback {
  /** Appended to the edit's result. */
  note: string;
  metadata: Record<string, unknown>;
}

/**
 * After a successful edit: the problems the edit introduced in each edited file that has a checker
 * (TypeScript, pyright, go vet, or tree-sitter's syntax check where Go's checker is absent): the
 * file's text before and after, checked by the same warm checker; problems it already had are
 * left out. Null when no edited file has a checker.
 */
export async function diagnoseEdit(checkers: CheckerSet, changes: readonly FileChange[], context: ToolContext, waitMs: number): Promise<EditFeedback | null> {
  const checked = changes.flatMap((change) => {
    const chosen = change.operation === "delete" ? undefined : checkers.forPath(change.path);
    return chosen === undefined ? [] : [{ change, ...chosen }];
  });
  if (checked.length === 0) return null;
  const lines: string[] = [];
  const problems: Array<{ path: string; line: number; column: number; code: string; message: string }> = [];
  const counts: Record<string, number> = {};
  const sources = [...new Set(checked.map((entry) => entry.checker.source))];
  const source = sources.join(", ");
  const unavailable = checked.find((entry) => entry.unavailable !== undefined)?.unavailable;
  let failure: { message: string; timedOut: boolean; workerPid?: number; source: string } | undefined;
  let pending: { path: string; source: string } | undefined;
  for (const { change, checker } of checked) {
    const versions = change.before === null ? [change.after.toString("utf8")] : [change.before.toString("utf8"), change.after.toString("utf8")];
    // A cold checker may take longer than an edit should wait: the check goes on (warming the worker
    // for the next edit) and the result says how to see the problems later.
    let waited: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      checker.check(context.workspace.root, change.path, versions),
      new Promise<"waiting">((resolve) => (waited = setTimeout(() => resolve("waiting"), waitMs))),
    ]).finally(() => clearTimeout(waited));
    if (outcome === "waiting") {
      pending = { path: change.path, source: checker.source };
      break;
    }
    if (!outcome.ok) {
      failure = { ...outcome, source: checker.source };
      break;
    }
    const fresh = outcome.results.length === 1 ? outcome.results[0] : newDiagnostics(outcome.results[0], outcome.results[1]);
    counts[change.path] = fresh.length;
    lines.push(...fresh.map((diagnostic) => formatDiagnostic(change.path, diagnostic)));
    problems.push(...fresh.map(({ line, column, code, message }) => ({ path: change.path, line, column, code, message })));
  }
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const metadata: Record<string, unknown> = {
    source,
    new_problems: total,
    files: counts,
    // type_checked: a real checker (tsc, pyright, go vet) ran, not the syntax fallback.
    ...(unavailable !== undefined ? { type_checked: false, unavailable_reason: unavailable.reason } : { type_checked: true }),
  };
  const caveat = unavailable !== undefined ? ` ${unavailable.message}` : "";
  if (pending !== undefined) {
    return {
      note: `(Diagnostics not ready: the ${pending.source} checker is still starting after ${waitMs} ms; call diagnostics on ${pending.path} to see its problems.)`,
      metadata: { ...metadata, pending: true },
    };
  }
  if (failure !== undefined) {
    return {
      note: `(No diagnostics: ${failure.message}.)`,
      metadata: { ...metadata, unavailable: true, timed_out: failure.timedOut, ...(failure.workerPid !== undefined ? { worker_pid: failure.workerPid } : {}) },
    };
  }
  if (total === 0) return { note: `No new problems (${source}).${caveat}`, metadata };
  // The ones shown, for clients (aide run lists them under the diff).
  metadata["problems"] = problems.slice(0, maxShown).map((problem) => ({ ...problem, message: problem.message.slice(0, 300) }));
  const shown = lines.slice(0, maxShown);
  const more = lines.length > shown.length ? `\n  (${lines.length - shown.length} more)` : "";
  return { note: `New problems this edit introduced (${source}):\n${shown.join("\n")}${more}${caveat === "" ? "" : `\n${caveat.trim()}`}`, metadata };
}
