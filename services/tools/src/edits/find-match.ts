import { isBlank, leadingWhitespace, reindentReplacement } from "./reindent.js";

export type MatchLevel = "exact" | "trailing_whitespace" | "relative_indent" | "whitespace_insensitive";

export type MatchResult =
  | { type: "text"; level: "exact"; start: number; end: number }
  | { type: "lines"; level: Exclude<MatchLevel, "exact">; start: number; end: number; replacement: string[] }
  | { type: "ambiguous"; level: MatchLevel; lines: number[] }
  | { type: "none" };

type Normalize = (line: string) => string;

const trailing: Normalize = (line) => line.trimEnd();
const trimmedBoth: Normalize = (line) => line.trim();
const insensitive: Normalize = (line) => line.replace(/\s+/g, "");

/** Starts where every needle line equals the file line after `normalize` (file lines normalized once). */
function candidates(fileLines: readonly string[], needle: readonly string[], normalize: Normalize): number[] {
  const file = fileLines.map(normalize);
  const wanted = needle.map(normalize);
  const found: number[] = [];
  for (let start = 0; start + wanted.length <= file.length; start += 1) {
    let ok = true;
    for (let k = 0; k < wanted.length && ok; k += 1) ok = file[start + k] === wanted[k];
    if (ok) found.push(start);
  }
  return found;
}

/** Same text after the indent, and every non-blank line shifted by the same indent. */
function relativeIndentCandidates(fileLines: readonly string[], needle: readonly string[]): number[] {
  return candidates(fileLines, needle, trimmedBoth).filter((start) => {
    let shift: string | undefined;
    for (let k = 0; k < needle.length; k += 1) {
      if (isBlank(needle[k])) continue;
      const fileIndent = leadingWhitespace(fileLines[start + k]);
      const needleIndent = leadingWhitespace(needle[k]);
      const delta = fileIndent.length >= needleIndent.length && fileIndent.endsWith(needleIndent)
        ? "+" + fileIndent.slice(0, fileIndent.length - needleIndent.length)
        : needleIndent.endsWith(fileIndent) ? "-" + needleIndent.slice(0, needleIndent.length - fileIndent.length) : undefined;
      if (delta === undefined) return false;
      if (shift === undefined) shift = delta;
      else if (shift !== delta) return false;
    }
    return true;
  });
}

function trimBlankEdges(lines: string[]): { lines: string[]; leading: number; trailing: number } {
  let leading = 0;
  while (leading < lines.length && isBlank(lines[leading])) leading += 1;
  let end = lines.length;
  while (end > leading && isBlank(lines[end - 1])) end -= 1;
  return { lines: lines.slice(leading, end), leading, trailing: lines.length - end };
}

/**
 * Exact text: the first occurrence on whole lines wins; an occurrence inside a line is used only
 * when it is the only one (so `x = 1` never lands inside `max = 10` when a real line exists).
 * With `requireUnique` (retries with trimmed context) a whole-line match must be unique too.
 */
function findExact(text: string, search: string, requireUnique: boolean): MatchResult | undefined {
  const partial: number[] = [];
  const whole: number[] = [];
  for (let at = text.indexOf(search); at !== -1 && partial.length + whole.length < 1000; at = text.indexOf(search, at + 1)) {
    const startsLine = at === 0 || text[at - 1] === "\n";
    const endsLine = at + search.length === text.length || text[at + search.length] === "\n" || search.endsWith("\n");
    if (startsLine && endsLine) {
      if (!requireUnique) return { type: "text", level: "exact", start: at, end: at + search.length };
      whole.push(at);
    } else partial.push(at);
  }
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
  const candidates = whole.length > 0 ? whole : partial;
  if (candidates.length === 1) return { type: "text", level: "exact", start: candidates[0], end: candidates[0] + search.length };
  if (candidates.length > 1) return { type: "ambiguous", level: "exact", lines: candidates.slice(0, 10).map(lineOf) };
  return undefined;
}

/**
 * Finds where SEARCH applies: exact text first (line endings already normalized, first match),
 * then whole lines compared ever more loosely. A loose level that finds two places refuses
 * (ambiguous) rather than guessing.
 */
export function findMatch(text: string, fileLines: readonly string[], search: string, replace: string, options: { requireUnique?: boolean } = {}): MatchResult {
  const exact = findExact(text, search, options.requireUnique ?? false);
  if (exact !== undefined) return exact;
  const searchLines = search.replace(/\n$/, "").split("\n");
  const trimmed = trimBlankEdges(searchLines);
  if (trimmed.lines.length === 0) return { type: "none" };
  const needle = trimmed.lines;
  let replaceLines = replace.replace(/\n$/, "").split("\n");
  if (replace === "") replaceLines = [];
  else {
    const replaceTrimmed = trimBlankEdges(replaceLines);
    if (trimmed.leading > 0 || trimmed.trailing > 0) replaceLines = replaceTrimmed.lines;
  }
  const levels: Array<[Exclude<MatchLevel, "exact">, () => number[]]> = [
    ["trailing_whitespace", () => candidates(fileLines, needle, trailing)],
    ["relative_indent", () => relativeIndentCandidates(fileLines, needle)],
    ["whitespace_insensitive", () => candidates(fileLines, needle, insensitive)],
  ];
  for (const [level, find] of levels) {
    const found = find();
    if (found.length > 1) return { type: "ambiguous", level, lines: found.map((n) => n + 1) };
    if (found.length === 1) {
      const start = found[0];
      const matched = fileLines.slice(start, start + needle.length);
      return { type: "lines", level, start, end: start + needle.length, replacement: reindentReplacement(replaceLines, needle, matched) };
    }
  }
  return { type: "none" };
}
