import { closestWindow, foldLine } from "./closest-lines.js";
import { visibleDifference } from "./visible-difference.js";

const asciiSpaceless = (line: string) => line.replace(/[ \t]+/g, "");

function foldedStarts(file: readonly string[], needle: readonly string[], limit: number): number[] {
  const found: number[] = [];
  for (let start = 0; start + needle.length <= file.length && found.length < limit; start += 1) {
    let ok = true;
    for (let k = 0; k < needle.length && ok; k += 1) ok = file[start + k] === needle[k];
    if (ok) found.push(start);
  }
  return found;
}

interface Alignment {
  start: number;
  /** File line index for each needle line (undefined: the needle line is not in the file). */
  rows: Array<number | undefined>;
  diagnosis: string;
}

function range(start: number, count: number): string {
  return count <= 1 ? `line ${start + 1}` : `lines ${start + 1}-${start + count}`;
}

/** The loose readings the engine does not apply, tried only to explain the miss. */
function diagnose(fileLines: readonly string[], needle: readonly string[], foldedFile: readonly string[], foldedNeedle: readonly string[]): Alignment | undefined {
  const loose = foldedStarts(foldedFile, foldedNeedle, 2);
  if (loose.length > 0) {
    const start = loose[0];
    const rows = needle.map((_, k) => start + k);
    const whitespaceOnly = needle.every((line, k) => asciiSpaceless(line) === asciiSpaceless(fileLines[start + k]));
    const where = `${range(start, needle.length)}${loose.length > 1 ? " (and elsewhere)" : ""}`;
    const diagnosis = whitespaceOnly
      ? `It matches ${where} only if whitespace is ignored; whitespace is compared exactly (a tab is not spaces, and inner spacing and alignment count).`
      : `It matches ${where} only if Unicode characters are folded; they are compared exactly (a no-break space is not a space, NFC and NFD forms differ, look-alike characters differ).`;
    return { start, rows, diagnosis };
  }
  if (needle.length >= 2 && needle.length <= 60) {
    for (let skip = 0; skip < needle.length; skip += 1) {
      const rest = foldedNeedle.filter((_, k) => k !== skip);
      if (rest.every((l) => l === "")) continue;
      const found = foldedStarts(foldedFile, rest, 2);
      if (found.length !== 1) continue;
      const start = found[0];
      const rows = needle.map((_, k) => (k < skip ? start + k : k === skip ? undefined : start + k - 1));
      return {
        start,
        rows,
        diagnosis: `Line ${skip + 1} of it is not in the file; without that line it would match ${range(start, needle.length - 1)}. Lines are never skipped or guessed: repeat the file's lines exactly.`,
      };
    }
  }
  return undefined;
}

/**
 * The refusal text for a needle that is not in the file: why the loose readings were not applied,
 * the closest lines of the file with their numbers, and each differing line with its differing
 * characters made visible, so the model can copy the file's exact text and retry.
 */
export function describeMiss(fileLines: readonly string[], needle: readonly string[], label: string, path: string, needleName = "SEARCH"): string {
  let message = `${label} was not found in ${path}; nothing was changed.`;
  // What the engine refuses to fold (whitespace of any kind, Unicode composition) is folded here only to explain.
  const foldedFile = fileLines.map(foldLine);
  const foldedNeedle = needle.map(foldLine);
  let alignment = diagnose(fileLines, needle, foldedFile, foldedNeedle);
  if (alignment === undefined) {
    const window = closestWindow(foldedFile, foldedNeedle);
    if (window !== undefined && window.score > 0.2) {
      alignment = { start: window.start, rows: needle.map((_, k) => (window.start + k < fileLines.length ? window.start + k : undefined)), diagnosis: "" };
    }
  }
  if (alignment === undefined) return `${message} Nothing in the file resembles it; read the file again and copy the lines to change (without the line numbers).`;
  if (alignment.diagnosis !== "") message += ` ${alignment.diagnosis}`;
  let lowest = alignment.start;
  let highest = alignment.start;
  for (const row of alignment.rows) {
    if (row === undefined) continue;
    lowest = Math.min(lowest, row);
    highest = Math.max(highest, row);
  }
  const first = lowest;
  const last = Math.min(fileLines.length, highest + 1, first + 60);
  const numbered = fileLines
    .slice(first, last)
    .map((line, i) => `${String(first + i + 1).padStart(5)}\t${line}`)
    .join("\n");
  message += `\nThe closest lines in the file (${first + 1}-${last}) are:\n${numbered}\n`;
  const differences: string[] = [];
  for (let k = 0; k < needle.length && differences.length < 16; k += 1) {
    const row = alignment.rows[k];
    if (row === undefined) {
      differences.push(`  ${needleName} line ${k + 1}: ${visibleDifference(needle[k], "").wanted}   (not in the file)`);
      continue;
    }
    if (needle[k] === fileLines[row]) continue;
    const shown = visibleDifference(needle[k], fileLines[row]);
    differences.push(`  ${needleName} line ${k + 1}: ${shown.wanted}`, `  file line ${row + 1}: ${shown.actual}`);
  }
  if (differences.length > 0) {
    message += `Where they differ (inside ⟦…⟧: · is a space, \\t a tab, U+XXXX any other character):\n${differences.join("\n")}\n`;
  }
  return `${message}Repeat the file's current lines exactly (without the line numbers) and retry.`;
}
