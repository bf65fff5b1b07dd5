import { isUtf8 } from "node:buffer";

/** Where an invalid UTF-8 sequence starts: 0-based byte offset in the file, 1-based line. */
export interface InvalidSequence {
  byteOffset: number;
  line: number;
}

/**
 * Streaming UTF-8 validation that counts what a decoder replaces with U+FFFD (one per maximal
 * invalid subpart, as in the WHATWG decoder), chunk by chunk. Valid chunks take the native check;
 * only a chunk with a problem is walked byte by byte.
 */
export class Utf8Validator {
  private need = 0;
  private seen = 0;
  private lower = 0x80;
  private upper = 0xbf;
  private sequence: InvalidSequence = { byteOffset: 0, line: 1 };

  constructor(private readonly onInvalid: (sequence: InvalidSequence) => void) {}

  /** `position`: the file offset of chunk[0]; `line`: the line chunk[0] is on. */
  feed(chunk: Buffer, position: number, line: number): void {
    let start = 0;
    if (this.need === 0) {
      const safeEnd = completeLength(chunk);
      if (isUtf8(chunk.subarray(0, safeEnd))) start = safeEnd;
    }
    let counted = 0;
    let countedLine = line;
    const lineAt = (index: number) => {
      for (; counted < index; counted += 1) if (chunk[counted] === 0x0a) countedLine += 1;
      return countedLine;
    };
    for (let index = start; index < chunk.length; index += 1) {
      const byte = chunk[index];
      if (this.need === 0) {
        if (byte <= 0x7f) continue;
        this.sequence = { byteOffset: position + index, line: lineAt(index) };
        if (byte >= 0xc2 && byte <= 0xdf) this.need = 1;
        else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) this.lower = 0xa0;
          if (byte === 0xed) this.upper = 0x9f;
          this.need = 2;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) this.lower = 0x90;
          if (byte === 0xf4) this.upper = 0x8f;
          this.need = 3;
        } else this.onInvalid(this.sequence);
        continue;
      }
      if (byte < this.lower || byte > this.upper) {
        this.reset();
        this.onInvalid(this.sequence);
        index -= 1; // the byte starts over
        continue;
      }
      this.lower = 0x80;
      this.upper = 0xbf;
      this.seen += 1;
      if (this.seen === this.need) this.reset();
    }
  }

  /** The end of the input: an unfinished sequence is invalid too. */
  end(): void {
    if (this.need === 0) return;
    this.reset();
    this.onInvalid(this.sequence);
  }

  private reset(): void {
    this.need = 0;
    this.seen = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }
}

/** The length of `chunk` without a multi-byte sequence cut off at its end. */
function completeLength(chunk: Buffer): number {
  for (let index = chunk.length - 1; index >= Math.max(0, chunk.length - 4); index -= 1) {
    const byte = chunk[index];
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return index + length > chunk.length ? index : chunk.length;
  }
  return chunk.length;
}
