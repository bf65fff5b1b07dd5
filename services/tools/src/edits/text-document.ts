/**
 * A file as lines, keeping each untouched line's original bytes so an edit never rewrites what it
 * did not change: CRLF stays CRLF, a BOM stays, invalid UTF-8 outside the edited lines survives.
 */
export interface DocumentLine {
  /** Decoded text without the line ending. */
  text: string;
  /** "\n", "\r\n" or "" (the last line without a newline). */
  eol: string;
  /** Original bytes (without the ending) while the line is untouched. */
  raw: Buffer | null;
}

export interface TextDocument {
  bom: boolean;
  lines: DocumentLine[];
  /** The dominant line ending, used for lines an edit creates. */
  eol: "\n" | "\r\n";
}

const bomBytes = Buffer.from([0xef, 0xbb, 0xbf]);

export function decodeDocument(bytes: Buffer): TextDocument {
  const bom = bytes.subarray(0, 3).equals(bomBytes);
  const body = bom ? bytes.subarray(3) : bytes;
  const lines: DocumentLine[] = [];
  let start = 0;
  let crlf = 0;
  let lf = 0;
  while (start < body.length) {
    const newline = body.indexOf(0x0a, start);
    if (newline === -1) {
      const raw = body.subarray(start);
      lines.push({ text: raw.toString("utf8"), eol: "", raw });
      break;
    }
    const hasCr = newline > start && body[newline - 1] === 0x0d;
    const raw = body.subarray(start, hasCr ? newline - 1 : newline);
    if (hasCr) crlf += 1;
    else lf += 1;
    lines.push({ text: raw.toString("utf8"), eol: hasCr ? "\r\n" : "\n", raw });
    start = newline + 1;
  }
  return { bom, lines, eol: crlf > lf ? "\r\n" : "\n" };
}

export function encodeDocument(document: TextDocument): Buffer {
  const parts: Buffer[] = document.bom ? [bomBytes] : [];
  for (const line of document.lines) {
    parts.push(line.raw ?? Buffer.from(line.text, "utf8"));
    if (line.eol !== "") parts.push(Buffer.from(line.eol, "latin1"));
  }
  return Buffer.concat(parts);
}

/** The matching view: lines joined with "\n" (line endings normalized). */
export function documentText(document: TextDocument): string {
  return document.lines.map((line) => line.text).join("\n") + (document.lines.at(-1)?.eol ? "\n" : "");
}

/** Replaces whole lines [start, end) with `replacement` lines (created with the dominant ending). */
export function replaceLines(document: TextDocument, start: number, end: number, replacement: string[], lastEol?: string): TextDocument {
  const finalEol = lastEol ?? (end > start ? document.lines[end - 1].eol : document.eol);
  const created: DocumentLine[] = replacement.map((text, index) => ({
    text,
    eol: index === replacement.length - 1 ? finalEol : document.eol,
    raw: null,
  }));
  const lines = [...document.lines.slice(0, start), ...created, ...document.lines.slice(end)];
  // A line that ended the file without a newline and is no longer last needs one.
  for (let i = 0; i < lines.length - 1; i += 1) if (lines[i].eol === "") lines[i] = { ...lines[i], eol: document.eol };
  return { ...document, lines };
}

/** Line and column of a character offset in `documentText`. */
function locate(document: TextDocument, offset: number): { line: number; column: number } {
  let remaining = offset;
  for (let line = 0; line < document.lines.length; line += 1) {
    const length = document.lines[line].text.length;
    if (remaining <= length) return { line, column: remaining };
    remaining -= length + 1;
  }
  return { line: document.lines.length, column: 0 };
}

/**
 * Replaces the characters [start, end) of `documentText` with `replacement`, rewriting only the
 * lines the range touches.
 */
export function replaceTextRange(document: TextDocument, start: number, end: number, replacement: string): TextDocument {
  const from = locate(document, start);
  const to = locate(document, end);
  const prefix = from.line < document.lines.length ? document.lines[from.line].text.slice(0, from.column) : "";
  if (to.column === 0 && to.line > from.line) {
    // The range ends just after a newline: the lines [from, to) are replaced whole.
    let combined = prefix + replacement;
    if (combined === "") return replaceLines(document, from.line, to.line, []);
    if (combined.endsWith("\n")) {
      combined = combined.slice(0, -1);
      return replaceLines(document, from.line, to.line, combined.split("\n"), document.lines[to.line - 1].eol);
    }
    // The replacement dropped that newline: the next line joins the last replaced one.
    if (to.line >= document.lines.length) return replaceLines(document, from.line, to.line, combined.split("\n"), "");
    const next = document.lines[to.line];
    return replaceLines(document, from.line, to.line + 1, (combined + next.text).split("\n"), next.eol);
  }
  const last = document.lines[to.line];
  const combined = prefix + replacement + last.text.slice(to.column);
  return replaceLines(document, from.line, to.line + 1, combined.split("\n"), last.eol);
}
