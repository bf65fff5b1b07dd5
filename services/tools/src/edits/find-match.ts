/**
 * The three tiers that may apply an edit, and nothing looser:
 * - `exact`: the lines are equal (of several occurrences, the one at the hint wins, and none when
 *   the hint names none of them: wrong `@@` numbers choose nothing; without a hint, the first);
 * - `trailing_whitespace`: equal once trailing spaces/tabs are stripped (must be unique);
 * - `indent_shift`: on every non-blank line one side's leading whitespace is the other's plus one
 *   constant prefix (must be unique). Tabs for spaces is not a shift.
 */
export type MatchTier = "exact" | "trailing_whitespace" | "indent_shift";

/** A uniform indentation shift: `prefix` added to the file's side ("file_deeper") or to SEARCH's. */
export interface IndentShift {
  prefix: string;
  direction: "file_deeper" | "search_deeper";
}

export type LineMatch =
  /** `occurrences`: every exact start (the `exact` tier only; a loose tier is found only when unique). */
  { type: "found"; tier: MatchTier; start: number; shift?: IndentShift; occurrences?: number[] } | { type: "ambiguous"; tier: MatchTier; lines: number[] } | { type: "none" };

const maxCandidates = 1000;

export function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

function trimTrailing(line: string): string {
  return line.replace(/[ \t]+$/, "");
}

/** Starts where `equal(file line, needle line)` holds for every needle line. */
function starts(fileLines: readonly string[], needle: readonly string[], equal: (a: string, b: string) => boolean, maybe: (a: string) => boolean = () => true): number[] {
  const found: number[] = [];
  for (let start = 0; start + needle.length <= fileLines.length && found.length < maxCandidates; start += 1) {
    if (!maybe(fileLines[start])) continue;
    let ok = true;
    for (let k = 0; k < needle.length && ok; k += 1) ok = equal(fileLines[start + k], needle[k]);
    if (ok) found.push(start);
  }
  return found;
}

/** `longer` is `prefix + shorter` with a non-empty prefix of spaces/tabs; returns that prefix. */
function addedPrefix(longer: string, shorter: string): string | undefined {
  if (longer.length <= shorter.length || !longer.endsWith(shorter)) return undefined;
  const prefix = longer.slice(0, longer.length - shorter.length);
  return /^[ \t]+$/.test(prefix) ? prefix : undefined;
}

/** The one shift that maps the needle onto the file lines at `start`, if there is one. */
export function shiftAt(fileLines: readonly string[], needle: readonly string[], start: number): IndentShift | undefined {
  let shift: IndentShift | undefined;
  for (let k = 0; k < needle.length; k += 1) {
    const fileLine = fileLines[start + k];
    const needleLine = needle[k];
    const fileBlank = isBlank(fileLine);
    if (fileBlank !== isBlank(needleLine)) return undefined;
    if (fileBlank) continue;
    let here: IndentShift | undefined;
    const deeperFile = addedPrefix(fileLine, needleLine);
    if (deeperFile !== undefined) here = { prefix: deeperFile, direction: "file_deeper" };
    else {
      const deeperSearch = addedPrefix(needleLine, fileLine);
      if (deeperSearch !== undefined) here = { prefix: deeperSearch, direction: "search_deeper" };
    }
    if (here === undefined) return undefined;
    if (shift === undefined) shift = here;
    else if (shift.prefix !== here.prefix || shift.direction !== here.direction) return undefined;
  }
  return shift;
}

/**
 * Where the needle's lines are in the file, trying the tiers in order. `hint` (0-based line, from
 * a diff's `@@` numbers) only chooses among several exact occurrences, and only the one it names
 * (numbers that are off by some lines are no proof of which place is meant); it never makes a
 * looser tier apply. A loose tier that finds two places is ambiguous, never a guess.
 */
export function findLines(fileLines: readonly string[], needle: readonly string[], hint?: number): LineMatch {
  if (needle.length === 0) return { type: "none" };
  const exact = starts(fileLines, needle, (a, b) => a === b);
  if (exact.length > 1 && hint !== undefined && !exact.includes(hint)) return { type: "ambiguous", tier: "exact", lines: exact.slice(0, 10).map((s) => s + 1) };
  if (exact.length > 0) return { type: "found", tier: "exact", start: hint !== undefined && exact.includes(hint) ? hint : exact[0], occurrences: exact };
  const trimmedNeedle = needle.map(trimTrailing);
  const first = trimmedNeedle[0];
  const trailing = starts(
    fileLines,
    trimmedNeedle,
    (a, b) => trimTrailing(a) === b,
    (a) => a.startsWith(first),
  );
  if (trailing.length > 1) return { type: "ambiguous", tier: "trailing_whitespace", lines: trailing.slice(0, 10).map((s) => s + 1) };
  if (trailing.length === 1) return { type: "found", tier: "trailing_whitespace", start: trailing[0] };
  // Cheap filter first (same text once leading whitespace is gone), then the exact shift rule.
  const bodies = needle.map((l) => l.trimStart());
  const sameBody = starts(
    fileLines,
    bodies,
    (a, b) => a.trimStart() === b,
    (a) => a.endsWith(bodies[0]),
  );
  const shifted: Array<{ start: number; shift: IndentShift }> = [];
  for (const start of sameBody) {
    const shift = shiftAt(fileLines, needle, start);
    if (shift !== undefined) shifted.push({ start, shift });
  }
  if (shifted.length > 1) return { type: "ambiguous", tier: "indent_shift", lines: shifted.slice(0, 10).map((s) => s.start + 1) };
  if (shifted.length === 1) return { type: "found", tier: "indent_shift", start: shifted[0].start, shift: shifted[0].shift };
  return { type: "none" };
}

/**
 * The replacement lines re-indented by the match's shift; undefined when a line cannot carry it
 * (SEARCH was deeper than the file, and a REPLACE line lacks the prefix to remove).
 */
export function applyShift(replacement: readonly string[], shift: IndentShift | undefined): string[] | undefined {
  if (shift === undefined) return [...replacement];
  const out: string[] = [];
  for (const line of replacement) {
    if (isBlank(line)) out.push(line);
    else if (shift.direction === "file_deeper") out.push(shift.prefix + line);
    else if (line.startsWith(shift.prefix)) out.push(line.slice(shift.prefix.length));
    else return undefined;
  }
  return out;
}
