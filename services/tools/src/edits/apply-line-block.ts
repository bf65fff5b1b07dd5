import { applyShift, findLines, type MatchTier } from "./find-match.js";
import { describeMiss } from "./describe-miss.js";
import { refuse, type EditRefusal } from "./edit-outcome.js";
import { replaceLines, type TextDocument } from "./text-document.js";

/** Lines an earlier block of the same edit wrote, [start, end) in the current document; empty = a deletion's seam. */
export interface ChangedRegion {
  start: number;
  end: number;
}

/** A document part-way through one edit: what the earlier blocks changed is remembered. */
export interface EditState {
  document: TextDocument;
  regions: ChangedRegion[];
}

export interface LineBlock {
  search: string[];
  replace: string[];
  /** 0-based line the block is said to start at (a diff's `@@`): chooses among exact occurrences only. */
  hint?: number;
  /** "SEARCH block 2 of 3", "Hunk 1 of 2": how messages name the block. */
  label: string;
  /** How the difference listing names the block's lines ("SEARCH", "hunk"). */
  needleName?: string;
  /**
   * "sequential" (SEARCH/REPLACE, as models write them): the block may match text an earlier block
   * wrote, when that is the only place it matches. "disjoint" (a diff's hunks, which all describe
   * the original file): matching what an earlier hunk changed is an overlap.
   */
  earlierChanges?: "sequential" | "disjoint";
  /** Indexes into `search` of lines that must equal the file's line there exactly (a diff's unprefixed lines). */
  exactLines?: readonly number[];
}

function overlaps(region: ChangedRegion, start: number, end: number): boolean {
  if (region.start === region.end) return start < region.start && region.start < end;
  return start < region.end && region.start < end;
}

function lineRange(start: number, count: number): string {
  return count <= 1 ? `line ${start + 1}` : `lines ${start + 1}-${start + count}`;
}

/**
 * Applies one block of whole lines through the matching tiers: refused when it is not there (with
 * the closest lines shown), ambiguous, already applied, or (see `earlierChanges`) overlapping what
 * an earlier block of the same edit changed. Lines REPLACE repeats unchanged at its start and end keep the file's bytes.
 */
export function applyLineBlock(state: EditState, block: LineBlock, path: string): { ok: true; state: EditState; tier: MatchTier; reachesEnd: boolean } | EditRefusal {
  const lines = state.document.lines.map((line) => line.text);
  const match = findLines(lines, block.search, block.hint);
  if (match.type === "none") {
    if (block.replace.length > 0) {
      const applied = findLines(lines, block.replace);
      if (applied.type !== "none" && applied.tier !== "indent_shift") {
        const where = applied.type === "found" ? lineRange(applied.start, block.replace.length) : `lines ${applied.lines.join(", ")}`;
        return refuse(
          "EDIT_ALREADY_APPLIED",
          `${block.label} looks applied already: its new lines are in ${path} (${where}) and its old lines are not. Nothing was changed; read the file to check it before editing again.`,
        );
      }
    }
    return refuse("EDIT_NOT_FOUND", describeMiss(lines, block.search, block.label, path, block.needleName));
  }
  if (match.type === "ambiguous") {
    return refuse(
      "EDIT_AMBIGUOUS",
      `${block.label} matches ${match.lines.length >= 10 ? "10 or more" : match.lines.length} places in ${path} (starting at lines ${match.lines.join(", ")})${match.tier === "exact" ? ", and its line numbers name none of them" : ` once ${match.tier === "trailing_whitespace" ? "trailing whitespace is ignored" : "indentation is shifted"}`}; nothing was changed. Copy the lines exactly as in the file, or include more surrounding lines, so it matches one place.`,
    );
  }
  const start = match.start;
  const end = start + block.search.length;
  const touches = (at: number) => state.regions.some((region) => overlaps(region, at, at + block.search.length));
  if (block.earlierChanges === "sequential") {
    const occurrences = match.occurrences ?? [start];
    if (occurrences.length > 1 && occurrences.some(touches)) {
      const where = occurrences.slice(0, 10).map((at) => at + 1);
      return refuse(
        "EDIT_AMBIGUOUS",
        `${block.label} matches ${occurrences.length >= 10 ? "10 or more" : occurrences.length} places in ${path} as the earlier blocks of this edit left it (starting at lines ${where.join(", ")}), and some of them are text an earlier block wrote, so which one it means is unclear; nothing was changed. Include more surrounding lines so it matches one place.`,
      );
    }
  } else if (touches(start)) {
    return refuse(
      "EDIT_OVERLAP",
      `${block.label} matches ${lineRange(start, block.search.length)} of ${path}, which an earlier block of this edit already changed; nothing was changed. Merge the two into one block, or make each block match lines the others do not touch.`,
    );
  }
  const inexact = (block.exactLines ?? []).find((k) => lines[start + k] !== block.search[k]);
  if (inexact !== undefined) {
    return refuse(
      "EDIT_MALFORMED",
      `${block.label}: its line ${inexact + 1}, \`${block.search[inexact]}\`, has no ' ', '-' or '+' prefix and is not exactly the file's line ${start + inexact + 1} (\`${lines[start + inexact]}\`), so it cannot be read as an unchanged line. Nothing was written; start every hunk line with ' ', '-' or '+'.`,
    );
  }
  const replacement = applyShift(block.replace, match.shift);
  if (replacement === undefined) {
    return refuse(
      "EDIT_MALFORMED",
      `${block.label} matches ${lineRange(start, block.search.length)} of ${path} with its indentation shifted by ${JSON.stringify(match.shift?.prefix)}, but a REPLACE line is less indented than that shift, so it cannot be re-indented the same way. Nothing was changed; copy the file's indentation exactly.`,
    );
  }
  let prefix = 0;
  while (prefix < block.search.length && prefix < block.replace.length && block.search[prefix] === block.replace[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < block.search.length - prefix && suffix < block.replace.length - prefix && block.search[block.search.length - 1 - suffix] === block.replace[block.replace.length - 1 - suffix])
    suffix += 1;
  const changeStart = start + prefix;
  const changeEnd = end - suffix;
  const written = replacement.slice(prefix, replacement.length - suffix);
  const atEnd = changeEnd === state.document.lines.length && changeEnd > 0;
  const noFinalNewline = state.document.lines.at(-1)?.eol === "";
  let document = replaceLines(state.document, changeStart, changeEnd, written, atEnd && noFinalNewline ? "" : undefined);
  if (atEnd && noFinalNewline && written.length === 0 && document.lines.length > 0) {
    // The last lines were deleted: the new last line ends the file without a newline, as before.
    const kept = [...document.lines];
    kept[kept.length - 1] = { ...kept[kept.length - 1], eol: "" };
    document = { ...document, lines: kept };
  }
  const delta = written.length - (changeEnd - changeStart);
  const regions = state.regions.map((region) => (region.start >= changeEnd ? { start: region.start + delta, end: region.end + delta } : region));
  regions.push({ start: changeStart, end: changeStart + written.length });
  return { ok: true, state: { document, regions }, tier: match.tier, reachesEnd: end === state.document.lines.length };
}
