import { applySearchReplace, type EditRefusal } from "./apply-search-replace.js";
import { parseSearchReplaceBlocks } from "./parse-search-replace.js";
import { parseUnifiedDiff } from "./parse-unified-diff.js";
import { applyFilePatch } from "./apply-unified-diff.js";

/** One table-driven edit case: the file before, the model's edit text, and what must happen. */
export interface EditCase {
  name: string;
  format: "search_replace" | "unified_diff";
  before: Buffer | string | null;
  edit: string;
  /** Blocks given directly (the `search`/`replace` arguments) instead of parsing `edit`. */
  blocks?: Array<{ search: string; replace: string }>;
  path?: string;
  expect: { after: Buffer | string } | { refused: EditRefusal | "parse" };
}

export type EditCaseVerdict = "applied_correctly" | "refused_correctly" | "applied_wrongly" | "refused_wrongly";

export interface EditCaseRun {
  verdict: EditCaseVerdict;
  after?: Buffer;
  error?: string;
}

function toBuffer(value: Buffer | string): Buffer {
  return typeof value === "string" ? Buffer.from(value, "utf8") : value;
}

/** Runs one case through the same parsers and matcher the tools use (no disk). */
export function runEditCase(testCase: EditCase): EditCaseRun {
  const path = testCase.path ?? "file.txt";
  const before = testCase.before === null ? null : toBuffer(testCase.before);
  let outcome: { ok: true; after: Buffer } | { ok: false; refusal: string; error: string };
  if (testCase.format === "search_replace") {
    const parsed = testCase.blocks !== undefined ? { ok: true as const, blocks: testCase.blocks } : parseSearchReplaceBlocks(testCase.edit);
    outcome = parsed.ok ? applySearchReplace(before, parsed.blocks, path) : { ok: false, refusal: "parse", error: parsed.error };
  } else {
    const parsed = parseUnifiedDiff(testCase.edit, path);
    if (!parsed.ok) outcome = { ok: false, refusal: "parse", error: parsed.error };
    else if (parsed.files.length !== 1) outcome = { ok: false, refusal: "parse", error: "expected one file" };
    else outcome = applyFilePatch(before, parsed.files[0]);
  }
  const expected = testCase.expect;
  if (outcome.ok) {
    if ("after" in expected && outcome.after.equals(toBuffer(expected.after))) return { verdict: "applied_correctly", after: outcome.after };
    if ("after" in expected) return { verdict: "applied_wrongly", after: outcome.after };
    return { verdict: "applied_wrongly", after: outcome.after };
  }
  if ("refused" in expected && expected.refused === outcome.refusal) return { verdict: "refused_correctly", error: outcome.error };
  return { verdict: "refused_wrongly", error: `${outcome.refusal}: ${outcome.error}` };
}
