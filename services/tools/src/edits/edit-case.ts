import { applySearchReplace } from "./apply-search-replace.js";
import { parseSearchReplaceBlocks } from "./parse-search-replace.js";
import { parseUnifiedDiff } from "./parse-unified-diff.js";
import { applyFilePatch } from "./apply-unified-diff.js";
import type { EditErrorCode, EditOutcome } from "./edit-outcome.js";

/** One table-driven edit case: the file before, the model's edit text, and exactly what must happen. */
export interface EditCase {
  name: string;
  /** What the case is about (crlf, unicode, indent_shift, …): the bench reports per category. */
  category: string;
  format: "search_replace" | "unified_diff";
  before: Buffer | string | null;
  edit: string;
  /** The `search`/`replace` arguments given directly instead of parsing `edit`. */
  blocks?: Array<{ search: string; replace: string }>;
  path?: string;
  /** The exact bytes after the edit, or the refusal code. */
  expect: { after: Buffer | string } | { refused: EditErrorCode };
}

export type EditCaseVerdict = "applied_correctly" | "refused_correctly" | "applied_wrongly" | "refused_wrongly";

export interface EditCaseRun {
  verdict: EditCaseVerdict;
  after?: Buffer;
  code?: string;
  error?: string;
}

function toBuffer(value: Buffer | string): Buffer {
  return typeof value === "string" ? Buffer.from(value, "utf8") : value;
}

/** Runs one case through the same parsers and matcher the tools use (no disk). */
export function editCaseOutcome(testCase: EditCase): EditOutcome {
  const path = testCase.path ?? "file.txt";
  const before = testCase.before === null ? null : toBuffer(testCase.before);
  if (testCase.format === "search_replace") {
    if (testCase.blocks !== undefined) return applySearchReplace(before, testCase.blocks, path, { partial: testCase.blocks.length === 1 });
    const parsed = parseSearchReplaceBlocks(testCase.edit);
    return parsed.ok ? applySearchReplace(before, parsed.blocks, path) : { ok: false, code: "EDIT_MALFORMED", error: parsed.error };
  }
  const parsed = parseUnifiedDiff(testCase.edit, path);
  if (!parsed.ok) return { ok: false, code: "EDIT_MALFORMED", error: parsed.error };
  if (parsed.files.length !== 1) return { ok: false, code: "EDIT_MALFORMED", error: `expected one file, the diff has ${parsed.files.length}` };
  return applyFilePatch(before, parsed.files[0]);
}

export function runEditCase(testCase: EditCase): EditCaseRun {
  const outcome = editCaseOutcome(testCase);
  const expected = testCase.expect;
  if (outcome.ok) {
    const right = "after" in expected && outcome.after.equals(toBuffer(expected.after));
    return { verdict: right ? "applied_correctly" : "applied_wrongly", after: outcome.after };
  }
  if ("refused" in expected && expected.refused === outcome.code) return { verdict: "refused_correctly", code: outcome.code, error: outcome.error };
  return { verdict: "refused_wrongly", code: outcome.code, error: `${outcome.code}: ${outcome.error}` };
}
