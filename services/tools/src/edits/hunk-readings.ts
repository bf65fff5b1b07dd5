import type { PatchHunk, PatchLine } from "./parse-unified-diff.js";

/** One way to read a hunk's body: the lines that belong to it; what follows is prose. */
export interface HunkReading {
  lines: PatchLine[];
  /** Indexes into the old side (context and removed lines) of non-blank unprefixed lines: each must be exactly the file's line there. */
  exactLines: number[];
}

/** The whole body and the cuts nearest the hunk's start (long prose after a hunk has many). */
const maxReadings = 8;

function isPrefixed(line: PatchLine): boolean {
  return line.unprefixed !== true;
}

function reading(lines: PatchLine[]): HunkReading {
  const exactLines: number[] = [];
  let old = 0;
  for (const line of lines) {
    if (line.type === "add") continue;
    if (line.unprefixed === true && line.text.trim() !== "") exactLines.push(old);
    old += 1;
  }
  return { lines, exactLines };
}

function satisfies(lines: readonly PatchLine[], counts: { old: number; new: number }): boolean {
  return lines.filter((l) => l.type !== "add").length >= counts.old && lines.filter((l) => l.type !== "remove").length >= counts.new;
}

/**
 * The readings of a hunk, longest first. A line without a prefix is either a context line that
 * lost its leading space or the start of prose after the hunk; the file decides which (see
 * applyFilePatch). The whole body is always a reading. A reading may also end at an unprefixed
 * line: when prefixed lines follow it (a bullet list in the prose), only if the lines before it
 * already hold what the `@@` counts announce; when none follows, unless the counts announce more
 * lines than come before it and the whole body holds them (then the counts say it belongs to the
 * hunk). Counts that fit no reading say nothing, and never cut a hunk shorter than its content.
 */
export function hunkReadings(hunk: PatchHunk): HunkReading[] {
  const cuts: number[] = [];
  const counts = hunk.counts;
  for (let k = 1; k < hunk.lines.length && cuts.length < maxReadings - 1; k += 1) {
    if (isPrefixed(hunk.lines[k])) continue;
    const head = hunk.lines.slice(0, k);
    if (!head.some(isPrefixed)) continue;
    const prefixedFollow = hunk.lines.slice(k).some(isPrefixed);
    if (prefixedFollow && (counts === undefined || !satisfies(head, counts))) continue;
    if (!prefixedFollow && counts !== undefined && !satisfies(head, counts) && satisfies(hunk.lines, counts)) continue;
    cuts.push(k);
  }
  return [reading(hunk.lines), ...cuts.reverse().map((k) => reading(hunk.lines.slice(0, k)))];
}

/** Whether the lines a shorter reading leaves out of a longer one hold a '+' or '-' line (not only context). */
export function dropsChanges(longer: HunkReading, shorter: HunkReading): boolean {
  return longer.lines.slice(shorter.lines.length).some((l) => l.type !== "context");
}
/** The shortest reading: the hunk as a strict parser reads it, for creations and deletions. */
export function shortestReading(hunk: PatchHunk): HunkReading {
  const readings = hunkReadings(hunk);
  return readings[readings.length - 1];
}
