import type { EditCase } from "./edit-case.js";
import type { EditErrorCode } from "./edit-outcome.js";

/** The exact bytes after the edit, or the code of the refusal. */
export type Expected = Buffer | string | { refused: EditErrorCode };

export const no = (code: EditErrorCode): Expected => ({ refused: code });

export const block = (search: string, replace: string, marks = 7): string => `${"<".repeat(marks)} SEARCH\n${search}${"=".repeat(marks)}\n${replace}${">".repeat(marks)} REPLACE\n`;

function expectOf(expected: Expected): EditCase["expect"] {
  return typeof expected === "object" && !Buffer.isBuffer(expected) ? expected : { after: expected };
}

/** A SEARCH/REPLACE case (`edit` parsed as the model wrote it). */
export function sr(category: string, name: string, before: EditCase["before"], edit: string, expected: Expected, path?: string): EditCase {
  return { category, name, format: "search_replace", before, edit, expect: expectOf(expected), ...(path !== undefined ? { path } : {}) };
}

/** A `search`/`replace` arguments case. */
export function args(category: string, name: string, before: EditCase["before"], search: string, replace: string, expected: Expected): EditCase {
  return { category, name, format: "search_replace", before, edit: "", blocks: [{ search, replace }], expect: expectOf(expected) };
}

/** A unified-diff case. */
export function ud(category: string, name: string, before: EditCase["before"], edit: string, expected: Expected, path?: string): EditCase {
  return { category, name, format: "unified_diff", before, edit, expect: expectOf(expected), ...(path !== undefined ? { path } : {}) };
}

/** `--- a/file.txt` / `+++ b/file.txt` then the hunks. */
export const diff = (hunks: string, path = "file.txt"): string => `--- a/${path}\n+++ b/${path}\n${hunks}`;
