import type { EditCase } from "./edit-case.js";
import { searchReplaceCases } from "./edit-corpus-search-replace.js";
import { unifiedDiffCases } from "./edit-corpus-unified-diff.js";
import { modelSlipCases } from "./edit-corpus-model-slips.js";

/**
 * The edit corpus: every case states the exact bytes after the edit or the refusal code. Tests
 * assert every case; `npm run bench:edits` counts the verdicts per category.
 */
export const editCorpus: EditCase[] = [...searchReplaceCases, ...unifiedDiffCases, ...modelSlipCases];
