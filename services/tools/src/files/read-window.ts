import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { Utf8Validator, type InvalidSequence } from "./utf8-validator.js";

export interface ReadWindowOptions {
  /** 1-based first line. */
  offset: number;
  limit: number;
  maxLineChars: number;
  /** Characters of the first line to skip: paging through a line longer than maxLineChars. */
  charOffset?: number;
  /** Count lines to the end only up to this many bytes (a huge file says "more follow"). */
  countLimitBytes: number;
  /** Never scan more than this per call (a multi-gigabyte file or one endless line). */
  scanLimitBytes?: number;
  signal?: AbortSignal;
}

export interface ShownLine {
  /** 1-based line number. */
  number: number;
  text: string;
  /** The character (UTF-16 unit) of the line where `text` starts. */
  start: number;
  /** The line goes on past `text`. */
  cut: boolean;
  /** Characters in the whole line; null when the scan stopped inside it. */
  length: number | null;
}

export interface ReadWindow {
  lines: ShownLine[];
  /** Total lines, or null when the file was too large to count. */
  totalLines: number | null;
  sizeBytes: number;
  /** Invalid UTF-8 on the lines shown (each replaced with U+FFFD): how many, and the first. */
  invalidUtf8: { count: number; first: InvalidSequence | null };
}

/**
 * Reads one window of lines from an open file without loading it: 64 KB chunks are decoded as a
 * stream, each shown line kept up to maxLineChars (from charOffset on the first one), lines past
 * the window only counted, and the bytes checked for invalid UTF-8 on the way.
 */
export async function readWindow(handle: FileHandle, options: ReadWindowOptions): Promise<ReadWindow> {
  const sizeBytes = (await handle.stat()).size;
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.alloc(64 * 1024);
  const lines: ShownLine[] = [];
  const last = options.offset + options.limit - 1;
  const inWindow = (line: number) => line >= options.offset && line <= last;
  const invalidUtf8 = { count: 0, first: null as InvalidSequence | null };
  const validator = new Utf8Validator((sequence) => {
    if (!inWindow(sequence.line)) return;
    invalidUtf8.count += 1;
    invalidUtf8.first ??= sequence;
  });
  let lineNumber = 1;
  let current = "";
  let column = 0;
  let lastChar = "";
  let position = 0;
  let stoppedEarly = false;
  const startOf = (line: number) => (line === options.offset ? (options.charOffset ?? 0) : 0);
  const take = (text: string) => {
    if (inWindow(lineNumber)) {
      const start = startOf(lineNumber);
      const from = Math.max(0, start - column);
      let to = Math.min(text.length, start + options.maxLineChars - column);
      // Never end the shown text between the two halves of a surrogate pair.
      if (to > from && to < text.length && /[\uD800-\uDBFF]/.test(text[to - 1])) to -= 1;
      if (to > from) current += text.slice(from, to);
    }
    column += text.length;
    if (text.length > 0) lastChar = text[text.length - 1];
  };
  const endLine = (complete: boolean) => {
    if (inWindow(lineNumber)) {
      const start = startOf(lineNumber);
      const length = complete ? (lastChar === "\r" ? column - 1 : column) : null;
      const text = length !== null && start + current.length > length ? current.slice(0, Math.max(0, length - start)) : current;
      lines.push({ number: lineNumber, text, start, cut: length === null || start + text.length < length, length });
    }
    current = "";
    column = 0;
    lastChar = "";
    lineNumber += 1;
  };
  for (;;) {
    if (options.signal?.aborted) throw new Error("aborted");
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    validator.feed(chunk, position, lineNumber);
    position += bytesRead;
    const text = decoder.write(chunk);
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      if (newline === -1) break;
      take(text.slice(start, newline));
      endLine(true);
      start = newline + 1;
    }
    take(text.slice(start));
    const windowDone = lineNumber > last || (lineNumber === last && column >= startOf(lineNumber) + options.maxLineChars);
    if ((windowDone && position >= options.countLimitBytes) || position >= (options.scanLimitBytes ?? 512 * 1024 * 1024)) {
      stoppedEarly = position < sizeBytes;
      if (stoppedEarly) {
        if (inWindow(lineNumber) && column > startOf(lineNumber)) endLine(false);
        break;
      }
    }
  }
  if (!stoppedEarly) {
    validator.end();
    take(decoder.end());
    if (column > 0) endLine(true);
  }
  const totalLines = stoppedEarly ? null : sizeBytes === 0 ? 0 : lineNumber - 1;
  return { lines, totalLines, sizeBytes, invalidUtf8 };
}
