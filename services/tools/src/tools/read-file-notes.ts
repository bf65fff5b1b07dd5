import type { ReadWindow, ShownLine } from "../files/read-window.js";
import type { InvisibleFlag } from "../files/invisible-characters.js";

const count = (value: number) => value.toLocaleString("en-US");

/** Where each cut line goes on: the offset/char_offset pair that reads the next part of it. */
export function cutLineNotes(lines: readonly ShownLine[]): string[] {
  const cut = lines.filter((line) => line.cut);
  const notes = cut.slice(0, 3).map((line) => {
    const next = line.start + line.text.length;
    const of = line.length === null ? "more follow" : `of ${count(line.length)}`;
    return `Line ${line.number} was cut at character ${count(next)} (${of}); use offset=${line.number} char_offset=${next} to read on.`;
  });
  if (cut.length > 3) notes.push(`${cut.length - 3} more long line(s) were cut the same way.`);
  return notes;
}

export function invalidUtf8Note(invalid: ReadWindow["invalidUtf8"]): string | null {
  if (invalid.count === 0 || invalid.first === null) return null;
  return `Not valid UTF-8: ${invalid.count} invalid byte sequence(s) on the lines shown were replaced with U+FFFD; the first is on line ${invalid.first.line}, at byte ${invalid.first.byteOffset} of the file.`;
}

export function invisibleNote(flags: readonly InvisibleFlag[]): string | null {
  if (flags.length === 0) return null;
  const kinds = [...new Set(flags.map((flag) => `${flag.codepoint} ${flag.kind}`))].slice(0, 5).join(", ");
  const lines = [...new Set(flags.map((flag) => flag.line))].slice(0, 5).join(", ");
  return `Warning: the lines shown contain ${flags.length}${flags.length >= 50 ? "+" : ""} invisible character(s) (${kinds}) on line(s) ${lines}; they are shown as ⟨U+…⟩ tokens.`;
}

/** How to continue past the window, or that it reached the end. */
export function continuationNote(window: ReadWindow, offset: number, limit: number): string | null {
  const lastShown = window.lines[window.lines.length - 1].number;
  const total = window.totalLines;
  if (total === null || lastShown < total) {
    return `Showing lines ${offset}-${lastShown}${total === null ? " (more follow)" : ` of ${total}`}. Use offset=${lastShown + 1} to continue.`;
  }
  if (offset > 1 || total > limit) return `Showing lines ${offset}-${lastShown} of ${total} (end of file).`;
  return null;
}
