import type { SearchReplaceBlock } from "./apply-search-replace.js";

const searchMarker = /^\s*<{5,}\s*(SEARCH|ORIGINAL)?\s*$/i;
const dividerMarker = /^\s*={5,}\s*$/;
const replaceMarker = /^\s*>{5,}\s*(REPLACE|UPDATED)?\s*$/i;

export type ParsedBlocks = { ok: true; blocks: SearchReplaceBlock[] } | { ok: false; error: string };

/**
 * Parses `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks (5 or more marker characters,
 * surrounding prose and code fences ignored).
 */
export function parseSearchReplaceBlocks(text: string): ParsedBlocks {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: SearchReplaceBlock[] = [];
  let state: "outside" | "search" | "replace" = "outside";
  let search: string[] = [];
  let replace: string[] = [];
  for (const line of lines) {
    if (state === "outside") {
      if (searchMarker.test(line)) {
        state = "search";
        search = [];
      }
      continue;
    }
    if (state === "search") {
      if (dividerMarker.test(line)) {
        state = "replace";
        replace = [];
      } else search.push(line);
      continue;
    }
    if (replaceMarker.test(line)) {
      blocks.push({ search: search.length > 0 ? search.join("\n") + "\n" : "", replace: replace.length > 0 ? replace.join("\n") + "\n" : "" });
      state = "outside";
    } else if (dividerMarker.test(line) && replace.length === 0 && search.length > 0) {
      continue;
    } else replace.push(line);
  }
  if (state === "search") return { ok: false, error: "A `<<<<<<< SEARCH` block has no `=======` line after it." };
  if (state === "replace") return { ok: false, error: "A SEARCH/REPLACE block is missing its closing `>>>>>>> REPLACE` line." };
  if (blocks.length === 0) {
    return { ok: false, error: "No SEARCH/REPLACE blocks found. Each block is:\n<<<<<<< SEARCH\n(lines exactly as in the file)\n=======\n(the new lines)\n>>>>>>> REPLACE" };
  }
  return { ok: true, blocks };
}
