import { aideError } from "@aide/contracts";
import type { FileChange, ToolContext, ToolOutcome } from "./tool-types.js";
import type { LintGate } from "../lint/lint-gate.js";
import { sha256Hex } from "../files/digest.js";
import { invisibleInAddedLines } from "../files/invisible-in-change.js";

/**
 * Refuses with APPROVAL_STALE when a file the person approved changed since the preview (or when
 * the call would touch a file the preview did not show).
 */
export function checkExpectedDigests(changes: readonly FileChange[], expected: Record<string, string> | undefined): void {
  if (expected === undefined) return;
  for (const change of changes) {
    const current = change.before === null ? "" : sha256Hex(change.before);
    const approved = expected[change.path];
    if (approved === undefined) {
      throw aideError("APPROVAL_STALE", { approval: "(preview)", detail: `${change.path} was not part of the approved preview` }, { path: change.path });
    }
    if (approved !== current) {
      throw aideError("APPROVAL_STALE", { approval: "(preview)", detail: `${change.path} changed since the preview` }, { path: change.path });
    }
  }
}

/**
 * The lint gate then the write: a change that turns a file that parsed (or did not exist) into one
 * that does not parse is discarded, and the model gets the parser's message.
 */
export async function applyFilePlan(changes: readonly FileChange[], summary: string, context: ToolContext, lint: LintGate): Promise<ToolOutcome> {
  const lintNotes: string[] = [];
  const lintResults: Record<string, string> = {};
  for (const change of changes) {
    if (change.operation === "delete") continue;
    const after = await lint.check(change.path, change.after, context.signal);
    lintResults[change.path] = after.status === "failed" ? "failed" : `${after.status}:${after.checker}`;
    if (after.status === "failed") {
      const before = change.before === null ? { status: "ok" as const } : await lint.check(change.path, change.before, context.signal);
      if (before.status !== "failed") {
        return {
          isError: true,
          output: `The edit was discarded: ${change.path} would no longer parse (${after.checker}):\n${after.message}\nThe file is unchanged. Fix the edit and try again.`,
          metadata: { error_code: "LINT_FAILED", lint: lintResults },
        };
      }
      lintNotes.push(`${change.path} did not parse before this edit either (${after.checker}); written anyway.`);
    } else if (after.status === "skipped") {
      lintNotes.push(`${change.path}: no syntax check for this file type.`);
    }
  }
  // Writes first, removals last: a rename interrupted half-way leaves both copies, never neither.
  for (const change of changes) {
    if (change.operation !== "delete") await context.workspace.writeFile(change.path, change.after);
  }
  for (const change of changes) {
    if (change.operation === "delete") await context.workspace.removeFile(change.path);
  }
  const invisible = changes.flatMap(invisibleInAddedLines);
  if (invisible.length > 0) {
    lintNotes.push(
      `Warning: the written text contains ${invisible.length} invisible character(s) (${[...new Set(invisible.map((f) => `${f.codepoint} ${f.kind}`))].slice(0, 5).join(", ")}) at ${invisible
        .slice(0, 5)
        .map((f) => `${f.path}:${f.line}`)
        .join(", ")}.`,
    );
  }
  const output = lintNotes.length > 0 ? `${summary}\n${lintNotes.join("\n")}` : summary;
  return {
    output,
    changedPaths: changes.map((c) => c.path),
    metadata: {
      lint: lintResults,
      invisible_characters: invisible.length,
      files: changes.map((c) =>
        c.operation === "delete"
          ? { path: c.path, deleted: true }
          : { path: c.path, created: c.before === null, bytes: c.after.length, sha256: sha256Hex(c.after), ...(c.renamedFrom !== undefined ? { renamed_from: c.renamedFrom } : {}) },
      ),
    },
  };
}
