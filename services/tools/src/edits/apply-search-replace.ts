import { decodeDocument, documentText, encodeDocument, replaceTextRange, type TextDocument } from "./text-document.js";
import { findLines, type LineMatch } from "./find-match.js";
import { findLazyComment } from "./lazy-comments.js";
import { applyLineBlock, type EditState } from "./apply-line-block.js";
import { refuse, type EditOutcome, type MatchLevel } from "./edit-outcome.js";

export interface SearchReplaceBlock {
  search: string;
  replace: string;
}

export interface SearchReplaceOptions {
  /**
   * The `search`/`replace` arguments (one block): exact text inside a line may match, when it
   * occurs exactly once. SEARCH/REPLACE blocks always match whole lines.
   */
  partial?: boolean;
}

/** A UTF-16 surrogate without its other half. */
const loneSurrogate = /\p{Cs}/u;

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

function toLines(text: string): string[] {
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

/** read_file output pasted into SEARCH: every non-blank line a line number and a tab, numbers consecutive. */
function stripLineNumbers(lines: readonly string[]): { lines: string[]; first: number } | undefined {
  const numbered = lines.filter((l) => l.trim() !== "").map((l) => /^\s*(\d+)\t/.exec(l));
  if (numbered.length === 0 || numbered.some((m) => m === null)) return undefined;
  const numbers = numbered.map((m) => Number(m![1]));
  if (!numbers.every((n, i) => i === 0 || n === numbers[i - 1] + 1)) return undefined;
  return { lines: lines.map((l) => l.replace(/^\s*\d+\t/, "")), first: numbers[0] };
}

function isExactLines(match: LineMatch): boolean {
  return match.type === "found" && match.tier === "exact";
}

/** Exact text inside lines, used only when it occurs once (`search`/`replace` arguments). */
function partialMatch(text: string, search: string): { at: number } | { count: number; lines: number[] } {
  const found: number[] = [];
  for (let at = text.indexOf(search); at !== -1 && found.length < 10; at = text.indexOf(search, at + 1)) found.push(at);
  if (found.length === 1) return { at: found[0] };
  return { count: found.length, lines: found.map((offset) => text.slice(0, offset).split("\n").length) };
}

/**
 * Applies SEARCH/REPLACE blocks in order, each to the text the previous ones produced (a block may
 * build on what an earlier one wrote, as models write them), all or nothing: any block that is
 * missing, already applied, or ambiguous refuses the whole edit. A block that matches text an
 * earlier block wrote must match nowhere else. An empty SEARCH creates the file (refused when it
 * has content).
 */
export function applySearchReplace(before: Buffer | null, blocks: readonly SearchReplaceBlock[], path: string, options: SearchReplaceOptions = {}): EditOutcome {
  const notices: string[] = [];
  const levels: MatchLevel[] = [];
  let state: EditState | null = before === null ? null : { document: decodeDocument(before), regions: [] };
  let created = false;
  /** Lines added minus lines removed by the blocks so far: read_file's numbers refer to the file before them. */
  let lineDelta = 0;
  if (blocks.length === 0) return refuse("EDIT_MALFORMED", "No SEARCH/REPLACE blocks were given.");
  for (let index = 0; index < blocks.length; index += 1) {
    const label = blocks.length > 1 ? `SEARCH block ${index + 1} of ${blocks.length}` : "The SEARCH text";
    // A BOM copied into SEARCH is the file's BOM (kept as it is), not text on its first line.
    const bomCopied = state?.document.bom === true && blocks[index].search.startsWith("\uFEFF");
    const search = normalizeNewlines(bomCopied ? blocks[index].search.slice(1) : blocks[index].search);
    const replace = normalizeNewlines(bomCopied ? blocks[index].replace.replace(/^\uFEFF/, "") : blocks[index].replace);
    if (search === replace) return refuse("EDIT_MALFORMED", `${label}: REPLACE is the same as SEARCH, so it changes nothing. Nothing was written.`);
    if (loneSurrogate.test(search) || loneSurrogate.test(replace)) {
      // Half of a character: it cannot be written as UTF-8, and in SEARCH it can only match by splitting one.
      return refuse(
        "EDIT_MALFORMED",
        `${label}: ${loneSurrogate.test(search) ? "SEARCH" : "REPLACE"} holds half of a character (a lone UTF-16 surrogate), which cannot be written to a file. Nothing was written.`,
      );
    }
    const lazy = findLazyComment(replace, search);
    if (lazy !== undefined) {
      return refuse(
        "EDIT_LAZY_ELISION",
        `${label}: REPLACE contains \`${lazy}\`, which stands for code it does not repeat; applying it would delete that code. Nothing was written. Write out the complete replacement (use smaller blocks around the lines that change).`,
      );
    }
    if (search.trim() === "") {
      if (state !== null && documentText(state.document).trim() !== "") {
        return refuse(
          "EDIT_FILE_EXISTS",
          `${label} is empty, which creates a new file, but ${path} already exists and has content. Nothing was written. Give the lines to replace in SEARCH, or use write_file to replace the whole file.`,
        );
      }
      const document: TextDocument = decodeDocument(Buffer.from(replace, "utf8"));
      const keepBom = state?.document.bom ?? false;
      state = { document: { ...document, bom: keepBom || document.bom }, regions: [{ start: 0, end: document.lines.length }] };
      created = before === null;
      levels.push("create");
      continue;
    }
    if (state === null) return refuse("FILE_NOT_FOUND", `${path} does not exist; nothing was written. To create it, use an empty SEARCH (or write_file).`);
    let searchLines = toLines(search);
    let replaceLines = toLines(replace);
    const fileLines = state.document.lines.map((l) => l.text);
    const unnumbered = stripLineNumbers(searchLines);
    if (unnumbered !== undefined && findLines(fileLines, searchLines).type === "none") {
      // The numbers are the proof: the unnumbered lines must be exactly there, at the line they name.
      const at = unnumbered.first - 1 + lineDelta;
      const found = findLines(fileLines, unnumbered.lines, at);
      if (found.type === "found" && found.tier === "exact" && found.start === at) {
        searchLines = unnumbered.lines;
        replaceLines = stripLineNumbers(replaceLines)?.lines ?? replaceLines;
        notices.push(`${label}: the line numbers from read_file were removed from SEARCH; do not include them.`);
      }
    }
    // The arguments form: whole lines that are exactly the file's are a line edit; otherwise exact
    // text that occurs once comes before any looser whole-line match (a bare `}` is that `}`, not
    // the indented line it would match once indentation is shifted).
    if (options.partial === true && blocks.length === 1 && !isExactLines(findLines(fileLines, searchLines))) {
      const text = documentText(state.document);
      const partial = partialMatch(text, search);
      if ("at" in partial) {
        const document = replaceTextRange(state.document, partial.at, partial.at + search.length, replace);
        state = { document, regions: [] };
        levels.push("exact");
        continue;
      }
      if (partial.count > 1) {
        return refuse(
          "EDIT_AMBIGUOUS",
          `The search text occurs ${partial.count >= 10 ? "10 or more" : partial.count} times in ${path} (lines ${partial.lines.join(", ")}); nothing was changed. Include more surrounding text so it matches one place.`,
        );
      }
    }
    const applied = applyLineBlock(state, { search: searchLines, replace: replaceLines, label, earlierChanges: "sequential" }, path);
    if (!applied.ok) return applied;
    lineDelta += applied.state.document.lines.length - state.document.lines.length;
    state = applied.state;
    levels.push(applied.tier);
  }
  if (state === null) return refuse("EDIT_MALFORMED", "No SEARCH/REPLACE blocks were given.");
  const after = encodeDocument(state.document);
  if (before !== null && after.equals(before)) {
    return refuse("EDIT_MALFORMED", `The edit leaves ${path} unchanged. Nothing was written.`);
  }
  return { ok: true, after, levels, created, notices };
}
