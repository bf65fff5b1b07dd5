import type { FileChange, ToolContext } from "../framework/tool-types.js";
import type { Diagnostic } from "./diagnostic.js";
import { newDiagnostics } from "./new-diagnostics.js";
import type { TypeScriptChecker } from "./typescript-checker.js";

const typescriptFile = /\.(ts|tsx|mts|cts)$/;
const maxShown = 10;

export function hasChecker(path: string): boolean {
  return typescriptFile.test(path) && !path.endsWith(".d.ts");
}

export function formatDiagnostic(path: string, diagnostic: Diagnostic): string {
  return `  ${path}:${diagnostic.line}:${diagnostic.column} ${diagnostic.code} ${diagnostic.message}`;
}

export interface EditFeedback {
  /** Appended to the edit's result. */
  note: string;
  metadata: Record<string, unknown>;
}

/**
 * After a successful edit: the problems the edit introduced in each edited TypeScript file (the
 * file's text before and after, checked in the same warm program; problems it already had are
 * left out). Null when no edited file has a checker.
 */
export async function diagnoseEdit(checker: TypeScriptChecker, changes: readonly FileChange[], context: ToolContext, waitMs: number): Promise<EditFeedback | null> {
  const checked = changes.filter((change) => change.operation !== "delete" && hasChecker(change.path));
  if (checked.length === 0) return null;
  const lines: string[] = [];
  const counts: Record<string, number> = {};
  let failure: { message: string; timedOut: boolean; workerPid?: number } | undefined;
  let pending: string | undefined;
  for (const change of checked) {
    const versions = change.before === null ? [change.after.toString("utf8")] : [change.before.toString("utf8"), change.after.toString("utf8")];
    // A cold checker may take longer than an edit should wait: the check goes on (warming the worker
    // for the next edit) and the result says how to see the problems later.
    let waited: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      checker.check(context.workspace.root, change.path, versions),
      new Promise<"waiting">((resolve) => (waited = setTimeout(() => resolve("waiting"), waitMs))),
    ]).finally(() => clearTimeout(waited));
    if (outcome === "waiting") {
      pending = change.path;
      break;
    }
    if (!outcome.ok) {
      failure = outcome;
      break;
    }
    const fresh = outcome.results.length === 1 ? outcome.results[0] : newDiagnostics(outcome.results[0], outcome.results[1]);
    counts[change.path] = fresh.length;
    lines.push(...fresh.map((diagnostic) => formatDiagnostic(change.path, diagnostic)));
  }
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const metadata: Record<string, unknown> = { source: "typescript", new_problems: total, files: counts };
  if (pending !== undefined) {
    return { note: `(Diagnostics not ready: the TypeScript checker is still starting after ${waitMs} ms; call diagnostics on ${pending} to see its problems.)`, metadata: { ...metadata, pending: true } };
  }
  if (failure !== undefined) {
    return { note: `(No diagnostics: ${failure.message}.)`, metadata: { ...metadata, unavailable: true, timed_out: failure.timedOut, ...(failure.workerPid !== undefined ? { worker_pid: failure.workerPid } : {}) } };
  }
  if (total === 0) return { note: "No new problems (typescript).", metadata };
  const shown = lines.slice(0, maxShown);
  const more = lines.length > shown.length ? `\n  (${lines.length - shown.length} more)` : "";
  return { note: `New problems this edit introduced (typescript):\n${shown.join("\n")}${more}`, metadata };
}
