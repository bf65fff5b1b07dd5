import { decodeDocument, documentText, encodeDocument, replaceLines, replaceTextRange, type TextDocument } from "./text-document.js";
import { findMatch, type MatchLevel } from "./find-match.js";
import { findLazyComment } from "./lazy-comments.js";
import { closestWindow } from "./closest-lines.js";
import { contextTrimmedVariants } from "./trim-context.js";

export interface SearchReplaceBlock {
  search: string;
  replace: string;
}

export type EditRefusal = "no_match" | "ambiguous" | "lazy_comment" | "missing_file" | "file_exists" | "no_change";

export type EditOutcome =
  | { ok: true; after: Buffer; levels: MatchLevel[]; created: boolean; notices: string[] }
  | { ok: false; refusal: EditRefusal; error: string };

/** read_file output pasted into SEARCH: every non-blank line starts with a line number and a tab. */
function stripLineNumbers(text: string): string | undefined {
  const lines = text.split("\n");
  const nonBlank = lines.filter((l) => l.trim() !== "");
  if (nonBlank.length === 0 || !nonBlank.every((l) => /^\s*\d+\t/.test(l))) return undefined;
  return lines.map((l) => l.replace(/^\s*\d+\t/, "")).join("\n");
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

function describeNoMatch(document: TextDocument, search: string, index: number, total: number, path: string): string {
  const fileLines = document.lines.map((l) => l.text);
  const needle = search.replace(/\n$/, "").split("\n");
  const window = closestWindow(fileLines, needle);
  const which = total > 1 ? `SEARCH block ${index + 1} of ${total}` : "The SEARCH text";
  let message = `${which} was not found in ${path}.`;
  if (window !== undefined && window.score > 0.2) {
    const shown = fileLines.slice(window.start, window.end).map((line, i) => `${String(window.start + i + 1).padStart(5)}\t${line}`).join("\n");
    message += ` The closest lines in the file (${window.start + 1}-${window.end}) are:\n${shown}\n`;
  }
  message += " SEARCH must repeat the file's current lines (whitespace differences are tolerated); read the file again and copy them without the line numbers.";
  return message;
}

type Applied = { document: TextDocument; level: MatchLevel; droppedContext?: number } | { ambiguous: number[]; level: MatchLevel } | undefined;

function applyMatch(document: TextDocument, block: SearchReplaceBlock, requireUnique: boolean): Applied {
  const text = documentText(document);
  const match = findMatch(text, document.lines.map((l) => l.text), block.search, block.replace, { requireUnique });
  switch (match.type) {
    case "text":
      return { document: replaceTextRange(document, match.start, match.end, block.replace), level: match.level };
    case "lines":
      return { document: replaceLines(document, match.start, match.end, match.replacement), level: match.level };
    case "ambiguous":
      return { ambiguous: match.lines, level: match.level };
    case "none":
      return undefined;
    default: {
      const unreachable: never = match;
      return unreachable;
    }
  }
}

/**
 * The block as given; failing that, with mismatching context dropped a line at a time, where a
 * match counts only if it is the one place in the file (two places at the same depth: refused).
 */
function applyOne(document: TextDocument, block: SearchReplaceBlock, trimContext: boolean): Applied {
  const direct = applyMatch(document, block, false);
  if (direct !== undefined || !trimContext) return direct;
  let ambiguous: Applied;
  let depth = 0;
  let found: { document: TextDocument; level: MatchLevel; droppedContext: number } | undefined;
  for (const variant of contextTrimmedVariants(block.search, block.replace)) {
    if (found !== undefined && variant.dropped > depth) break;
    const applied = applyMatch(document, variant, true);
    if (applied === undefined) continue;
    if ("ambiguous" in applied) {
      ambiguous ??= applied;
      continue;
    }
    if (found !== undefined && !applied.document.lines.every((line, i) => line.text === found!.document.lines[i]?.text)) {
      return { ambiguous: [], level: applied.level };
    }
    found = { ...applied, droppedContext: variant.dropped };
    depth = variant.dropped;
  }
  return found ?? ambiguous;
}

/**
 * Applies SEARCH/REPLACE blocks in order, each to the result of the previous one (so blocks may come
 * in any order), all or nothing. An empty SEARCH creates the file.
 */
export function applySearchReplace(before: Buffer | null, blocks: readonly SearchReplaceBlock[], path: string, options: { trimContext?: boolean } = {}): EditOutcome {
  const notices: string[] = [];
  const levels: MatchLevel[] = [];
  let document: TextDocument | null = before === null ? null : decodeDocument(before);
  let created = false;
  for (let index = 0; index < blocks.length; index += 1) {
    let search = normalizeNewlines(blocks[index].search);
    let replace = normalizeNewlines(blocks[index].replace);
    const unnumbered = stripLineNumbers(search);
    if (unnumbered !== undefined) {
      search = unnumbered;
      replace = stripLineNumbers(replace) ?? replace;
      notices.push(`Block ${index + 1}: line numbers from read_file were removed from SEARCH; do not include them.`);
    }
    const lazy = findLazyComment(replace, search);
    if (lazy !== undefined) {
      return { ok: false, refusal: "lazy_comment", error: `REPLACE contains \`${lazy}\`, which stands for code it does not repeat; applying it would delete that code. Write out the complete replacement text (use smaller SEARCH/REPLACE blocks around the lines that change).` };
    }
    if (search.trim() === "") {
      if (document !== null && documentText(document).trim() !== "") {
        return { ok: false, refusal: "file_exists", error: `SEARCH is empty, which creates a new file, but ${path} already exists. Give the lines to replace in SEARCH, or use write_file to replace the whole file.` };
      }
      document = decodeDocument(Buffer.from(replace, "utf8"));
      created = before === null;
      levels.push("exact");
      continue;
    }
    if (document === null) {
      return { ok: false, refusal: "missing_file", error: `${path} does not exist. To create it, use an empty SEARCH (or write_file).` };
    }
    const applied = applyOne(document, { search, replace }, options.trimContext ?? true);
    if (applied === undefined) return { ok: false, refusal: "no_match", error: describeNoMatch(document, search, index, blocks.length, path) };
    if ("ambiguous" in applied) {
      return {
        ok: false,
        refusal: "ambiguous",
        error: `SEARCH block ${index + 1} matches ${applied.ambiguous.length > 0 ? `${applied.ambiguous.length} places in ${path} (lines ${applied.ambiguous.join(", ")})` : `more than one place in ${path}`} only loosely or partially; nothing was changed. Include more surrounding lines, exactly as in the file, so it matches one place.`,
      };
    }
    document = applied.document;
    levels.push(applied.level);
    if (applied.droppedContext !== undefined) {
      notices.push(`Block ${index + 1}: ${applied.droppedContext} context line(s) did not match the file and were ignored; the changed lines matched one place. Check the result.`);
    }
  }
  if (document === null) return { ok: false, refusal: "no_change", error: "No SEARCH/REPLACE blocks were given." };
  const after = encodeDocument(document);
  if (before !== null && after.equals(before)) {
    return { ok: false, refusal: "no_change", error: `The edit leaves ${path} unchanged (REPLACE equals SEARCH). Nothing was written.` };
  }
  return { ok: true, after, levels, created, notices };
}
