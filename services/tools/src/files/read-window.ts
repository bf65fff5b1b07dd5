import { openNoFollow } from "./open-no-follow.js";
import { StringDecoder } from "node:string_decoder";

export interface ReadWindowOptions {
  /** 1-based first line. */
  offset: number;
  limit: number;
  maxLineChars: number;
  /** Count lines to the end only up to this many bytes (a huge file says "more follow"). */
  countLimitBytes: number;
  /** Never scan more than this per call (a multi-gigabyte file or one endless line). */
  scanLimitBytes?: number;
  signal?: AbortSignal;
}

export interface ReadWindow {
  lines: string[];
  /** Lines longer than maxLineChars that were cut. */
  cutLines: number;
  /** Total lines, or null when the file was too large to count. */
  totalLines: number | null;
  sizeBytes: number;
}

/**
 * Reads one window of lines without loading the whole file: chunks are decoded as a stream, each
 * line kept up to maxLineChars, and lines past the window only counted.
 */
export async function readWindow(path: string, options: ReadWindowOptions): Promise<ReadWindow> {
  const handle = await openNoFollow(path);
  try {
    const sizeBytes = (await handle.stat()).size;
    const decoder = new StringDecoder("utf8");
    const buffer = Buffer.alloc(64 * 1024);
    const lines: string[] = [];
    const last = options.offset + options.limit - 1;
    let lineNumber = 1;
    let current = "";
    let currentCut = false;
    let cutLines = 0;
    let position = 0;
    let stoppedEarly = false;
    let pendingLine = false;
    const take = (text: string) => {
      if (text.length > 0) pendingLine = true;
      if (lineNumber < options.offset || lineNumber > last) return;
      if (current.length + text.length > options.maxLineChars) {
        current += text.slice(0, Math.max(0, options.maxLineChars - current.length));
        currentCut = true;
      } else current += text;
    };
    const endLine = () => {
      if (lineNumber >= options.offset && lineNumber <= last) {
        lines.push(current.endsWith("\r") ? current.slice(0, -1) : current);
        if (currentCut) cutLines += 1;
      }
      current = "";
      currentCut = false;
      pendingLine = false;
      lineNumber += 1;
    };
    for (;;) {
      if (options.signal?.aborted) throw new Error("aborted");
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const text = decoder.write(buffer.subarray(0, bytesRead));
      let start = 0;
      for (;;) {
        const newline = text.indexOf("\n", start);
        if (newline === -1) break;
        take(text.slice(start, newline));
        endLine();
        start = newline + 1;
      }
      take(text.slice(start));
      const windowDone = lineNumber > last || (lineNumber === last && current.length >= options.maxLineChars);
      if ((windowDone && position >= options.countLimitBytes) || position >= (options.scanLimitBytes ?? 512 * 1024 * 1024)) {
        stoppedEarly = position < sizeBytes;
        if (stoppedEarly && lineNumber <= last && lineNumber >= options.offset && current.length > 0) endLine();
        break;
      }
    }
    if (!stoppedEarly) {
      take(decoder.end());
      if (pendingLine) endLine();
    }
    const totalLines = stoppedEarly ? null : sizeBytes === 0 ? 0 : lineNumber - 1;
    return { lines, cutLines, totalLines, sizeBytes };
  } finally {
    await handle.close();
  }
}
