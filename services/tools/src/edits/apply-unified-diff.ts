import { hunkSides, type FilePatch, type PatchHunk } from "./parse-unified-diff.js";
import { dropsChanges, hunkReadings, shortestReading, type HunkReading } from "./hunk-readings.js";
import { decodeDocument, documentText, encodeDocument, type TextDocument } from "./text-document.js";
import { findLazyComment } from "./lazy-comments.js";
import { applyLineBlock, type EditState } from "./apply-line-block.js";
import { describeMiss } from "./describe-miss.js";
import { refuse, type EditOutcome, type EditRefusal, type MatchLevel } from "./edit-outcome.js";

function hunkLabel(index: number, total: number, path: string): string {
  return `Hunk ${index + 1} of ${total} for ${path}`;
}

/** A new file's bytes: every hunk may only add lines. */
function createdContent(patch: FilePatch): EditOutcome {
  const lines: string[] = [];
  let finalNewline = true;
  for (const [index, hunk] of patch.hunks.entries()) {
    const body = shortestReading(hunk).lines;
    if (body.some((l) => l.type !== "add")) {
      return refuse(
        "EDIT_MALFORMED",
        `${hunkLabel(index, patch.hunks.length, patch.path)} has context or removed lines, but the diff creates the file (\`--- /dev/null\`). A new file's hunk only has '+' lines.`,
      );
    }
    lines.push(...body.map((l) => l.text));
    finalNewline = !hunk.newNoNewline;
  }
  const content = lines.join("\n") + (lines.length > 0 && finalNewline ? "\n" : "");
  const lazy = findLazyComment(content, "");
  if (lazy !== undefined) return refuse("EDIT_LAZY_ELISION", `The diff adds \`${lazy}\`, which stands for code it does not repeat. Nothing was written; write out the complete lines.`);
  return { ok: true, after: Buffer.from(content, "utf8"), levels: ["create"], created: true, notices: [] };
}

/** A deletion is applied only when its removed lines are the whole file (or it has no hunks at all). */
function deletion(before: Buffer, patch: FilePatch): EditOutcome {
  if (patch.hunks.length === 0) return { ok: true, after: Buffer.alloc(0), levels: ["exact"], created: false, notices: [] };
  const bodies = patch.hunks.map((h) => shortestReading(h).lines);
  if (bodies.some((lines) => lines.some((l) => l.type === "add"))) {
    return refuse("EDIT_MALFORMED", `The diff deletes ${patch.path} (\`+++ /dev/null\`) but also adds lines. A deletion only has '-' lines.`);
  }
  const removed = bodies.flatMap((lines) => hunkSides(lines).old);
  const fileLines = decodeDocument(before).lines.map((l) => l.text);
  const trim = (l: string) => l.replace(/[ \t]+$/, "");
  if (removed.length === fileLines.length && removed.every((l, i) => l === fileLines[i])) return { ok: true, after: Buffer.alloc(0), levels: ["exact"], created: false, notices: [] };
  if (removed.length === fileLines.length && removed.every((l, i) => trim(l) === trim(fileLines[i])))
    return { ok: true, after: Buffer.alloc(0), levels: ["trailing_whitespace"], created: false, notices: [] };
  return refuse(
    "EDIT_NOT_FOUND",
    describeMiss(fileLines, removed, `The deletion's removed lines (the whole file, as the diff shows it)`, patch.path, "hunk") +
      ` ${patch.path} is deleted only when the diff removes exactly its current content.`,
  );
}

/** `\ No newline at end of file` on a hunk that reaches the end of the file sets the final newline. */
function finalNewline(document: TextDocument, hunk: PatchHunk): TextDocument {
  const last = document.lines.at(-1);
  if (last === undefined) return document;
  const eol = hunk.newNoNewline ? "" : hunk.oldNoNewline ? document.eol : last.eol;
  if (eol === last.eol) return document;
  return { ...document, lines: [...document.lines.slice(0, -1), { ...last, eol }] };
}

type HunkResult = { ok: true; state: EditState; level: MatchLevel; added: number } | EditRefusal;

/** One reading of a hunk applied to the file as the earlier hunks left it. */
function applyReading(state: EditState, hunk: PatchHunk, reading: HunkReading, hint: number | undefined, label: string, path: string): HunkResult {
  const sides = hunkSides(reading.lines);
  if (hunk.oldNoNewline === hunk.newNoNewline && sides.old.length === sides.new.length && sides.old.every((l, i) => l === sides.new[i])) {
    return refuse("EDIT_MALFORMED", `${label} changes nothing (no '+' or '-' lines, or the same lines removed and added). Nothing was written.`);
  }
  const lazy = findLazyComment(sides.new.join("\n"), sides.old.join("\n"));
  if (lazy !== undefined)
    return refuse("EDIT_LAZY_ELISION", `${label} adds \`${lazy}\`, which stands for code it does not repeat; applying it would delete that code. Nothing was written; write out the complete lines.`);
  if (sides.old.length === 0) {
    if (documentText(state.document) !== "") {
      return refuse(
        "EDIT_MALFORMED",
        `${label} only adds lines and has no context lines, so nothing proves where they go (the @@ numbers are only hints). Nothing was written; add the unchanged lines around it, prefixed with a space.`,
      );
    }
    const document = decodeDocument(Buffer.from(sides.new.join("\n") + (hunk.newNoNewline ? "" : "\n"), "utf8"));
    return { ok: true, state: { document, regions: [{ start: 0, end: sides.new.length }] }, level: "create", added: sides.new.length };
  }
  const applied = applyLineBlock(
    state,
    { search: sides.old, replace: sides.new, hint, label: `${label} (its context and removed lines)`, needleName: "hunk", earlierChanges: "disjoint", exactLines: reading.exactLines },
    path,
  );
  if (!applied.ok) return applied;
  let next = applied.state;
  if (applied.reachesEnd && (hunk.newNoNewline || hunk.oldNoNewline)) next = { ...next, document: finalNewline(next.document, hunk) };
  return { ok: true, state: next, level: applied.tier, added: sides.new.length - sides.old.length };
}

/**
 * A hunk through each of its readings (hunk-readings.ts): the longest that applies wins, since the
 * file agrees with every line of it; but a shorter one that applies elsewhere by leaving out only
 * context lines makes the hunk ambiguous (is the unprefixed line context, or prose?). When none
 * applies, the refusal of the shortest reading (what a strict parser reads) is given; "not found"
 * is said as a missing prefix when that reading still has unprefixed lines.
 */
function applyHunk(state: EditState, hunk: PatchHunk, hint: number | undefined, label: string, path: string): HunkResult {
  const readings = hunkReadings(hunk);
  const results = readings.map((reading) => applyReading(state, hunk, reading, hint, label, path));
  const winner = results.findIndex((result) => result.ok);
  if (winner !== -1) {
    const chosen = results[winner] as Extract<HunkResult, { ok: true }>;
    const first = encodeDocument(chosen.state.document);
    const rivals = results.filter((result, index) => index > winner && result.ok && !dropsChanges(readings[winner], readings[index])) as Array<Extract<HunkResult, { ok: true }>>;
    if (rivals.some((result) => !encodeDocument(result.state.document).equals(first))) {
      return refuse(
        "EDIT_AMBIGUOUS",
        `${label} has lines without a ' ', '-' or '+' prefix that can be read both as unchanged lines and as text after the hunk, and the two readings change ${path} in different places; nothing was changed. Start every hunk line with ' ', '-' or '+'.`,
      );
    }
    return chosen;
  }
  const shortest = readings[readings.length - 1];
  const refusal = results[results.length - 1] as EditRefusal;
  if (shortest.exactLines.length === 0 || refusal.code !== "EDIT_NOT_FOUND") return refusal;
  const oldSide = shortest.lines.filter((l) => l.type !== "add");
  const line = oldSide[shortest.exactLines[0]].text;
  return refuse(
    "EDIT_MALFORMED",
    `${label} has the line \`${line}\` without a ' ', '-' or '+' prefix. Such a line is read as an unchanged line only where it is exactly the file's line, and read so the hunk does not apply (${refusal.code}: ${refusal.error}) Nothing was written; start every hunk line with ' ' (unchanged), '-' (removed) or '+' (added).`,
  );
}

/**
 * Applies one file's hunks in order, each to the result of the previous, through the same tiers
 * as SEARCH/REPLACE; the `@@` numbers only choose among several exact occurrences, and the hunk's
 * content, not its counts, says where it ends. All hunks or nothing. `before` is the file's (for a
 * rename, the source's) current bytes.
 */
export function applyFilePatch(before: Buffer | null, patch: FilePatch): EditOutcome {
  const shownPath = patch.fromPath ?? patch.path;
  if (patch.operation === "create") {
    if (before !== null && before.length > 0) {
      return refuse("EDIT_FILE_EXISTS", `The diff creates ${patch.path} (\`--- /dev/null\`), but it already exists. Nothing was written; diff against its current content instead.`);
    }
    return createdContent(patch);
  }
  if (before === null) return refuse("FILE_NOT_FOUND", `${shownPath} does not exist; nothing was written. A diff that creates a file starts with \`--- /dev/null\`.`);
  if (patch.operation === "delete") return deletion(before, patch);
  let state: EditState = { document: decodeDocument(before), regions: [] };
  const levels: MatchLevel[] = [];
  let delta = 0;
  const total = patch.hunks.length;
  for (const [index, hunk] of patch.hunks.entries()) {
    const hint = hunk.oldStart === undefined ? undefined : Math.max(0, hunk.oldStart - 1 + delta);
    const applied = applyHunk(state, hunk, hint, hunkLabel(index, total, shownPath), shownPath);
    if (!applied.ok) return applied;
    state = applied.state;
    delta += applied.added;
    levels.push(applied.level);
  }
  const after = encodeDocument(state.document);
  if (patch.operation !== "rename" && after.equals(before)) return refuse("EDIT_MALFORMED", `The diff leaves ${shownPath} unchanged. Nothing was written.`);
  return { ok: true, after, levels, created: false, notices: [] };
}
