import type { SearchReplaceBlock } from "./apply-search-replace.js";

const searchMarker = /^\s*<{5,9}\s*(SEARCH|ORIGINAL)?\s*$/i;
const dividerMarker = /^\s*={5,9}\s*$/;
const replaceMarker = /^\s*>{5,9}\s*(REPLACE|UPDATED)?\s*$/i;
/** A marker line with 10 or more characters: not a marker, and never silently skipped. */
const overlongMarker = /^\s*(<{10,}\s*(SEARCH|ORIGINAL)?|={10,}|>{10,}\s*(REPLACE|UPDATED)?)\s*$/i;
const markerHelp = "Markers are 5 to 9 characters: `<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE`.";

export type ParsedBlocks = { ok: true; blocks: SearchReplaceBlock[] } | { ok: false; error: string };

/**
 * Parses `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks (5 to 9 marker characters,
 * surrounding prose and code fences ignored). An overlong marker outside a block refuses the whole
 * edit rather than dropping the block it starts.
 */
export function parseSearchReplaceBlocks(text: string): ParsedBlocks {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: SearchReplaceBlock[] = [];
  let state: "outside" | "search" | "replace" = "outside";
  let search: string[] = [];
  let replace: string[] = [];
  for (const line of lines) {
    if (state === "outside") {
      if (overlongMarker.test(line)) return { ok: false, error: `The line \`${line.trim()}\` has 10 or more marker characters, so it is not a marker and its block cannot be read. ${markerHelp}` };
      if (searchMarker.test(line)) {
        state = "search";
        search = [];
      }
      continue;
    }
    if (/^\s*(<{10,}|>{10,})/.test(line) && overlongMarker.test(line)) {
      return { ok: false, error: `Block ${blocks.length + 1}: the line \`${line.trim()}\` has 10 or more marker characters, so it is not a marker. ${markerHelp}` };
    }
    if (searchMarker.test(line)) return { ok: false, error: `Block ${blocks.length + 1} is not closed before the next \`<<<<<<< SEARCH\`. ${markerHelp}` };
    if (state === "search") {
      if (replaceMarker.test(line)) return { ok: false, error: `Block ${blocks.length + 1} reaches \`>>>>>>> REPLACE\` without a \`=======\` line. ${markerHelp}` };
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
    } else replace.push(line);
  }
  if (state === "search") return { ok: false, error: `A \`<<<<<<< SEARCH\` block has no \`=======\` line after it. ${markerHelp}` };
  if (state === "replace") return { ok: false, error: `A SEARCH/REPLACE block is missing its closing \`>>>>>>> REPLACE\` line. ${markerHelp}` };
  if (blocks.length === 0) {
    return { ok: false, error: "No SEARCH/REPLACE blocks found. Each block is:\n<<<<<<< SEARCH\n(lines exactly as in the file)\n=======\n(the new lines)\n>>>>>>> REPLACE" };
  }
  return { ok: true, blocks };
}
