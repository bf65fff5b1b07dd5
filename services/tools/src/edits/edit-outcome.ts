import type { MatchTier } from "./find-match.js";

/** The stable codes an edit refusal carries (contracts' catalog, docs/errors.md). */
export type EditErrorCode = "EDIT_NOT_FOUND" | "EDIT_AMBIGUOUS" | "EDIT_MALFORMED" | "EDIT_LAZY_ELISION" | "EDIT_ALREADY_APPLIED" | "EDIT_FILE_EXISTS" | "EDIT_OVERLAP" | "FILE_NOT_FOUND" | "TIMEOUT";

/** How a block landed: a matching tier, or "create" for an empty SEARCH / a new file. */
export type MatchLevel = MatchTier | "create";

export type EditRefusal = { ok: false; code: EditErrorCode; error: string };

export type EditOutcome = { ok: true; after: Buffer; levels: MatchLevel[]; created: boolean; notices: string[] } | EditRefusal;

export function refuse(code: EditErrorCode, error: string): EditRefusal {
  return { ok: false, code, error };
}
