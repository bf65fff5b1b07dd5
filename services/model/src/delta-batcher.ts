/**
 * Coalesces a generation's text chunks into deltas: one publish per `intervalMs` (or as soon as
 * `maxChars` are pending) instead of one per token. A local model produces hundreds of tokens a
 * second; a bus message per token costs a syscall and a wake-up of the server and the reader
 * each, which on a small shared machine slows the generation itself. `flush()` sends what is left
 * (called before the final reply, so every delta precedes it).
 */
export class DeltaBatcher {
  private pending = "";
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (text: string) => void,
    private readonly intervalMs = 25,
    private readonly maxChars = 512,
  ) {}

  push(text: string): void {
    if (text.length === 0) return;
    this.pending += text;
    if (this.pending.length >= this.maxChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const text = this.pending;
    this.pending = "";
    // One provider chunk may be huge (a whole file in one token run): each delta stays far under
    // the bus's max payload (at most 3 bytes per UTF-16 unit), never cutting a surrogate pair.
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + maxDeltaChars);
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      this.send(text.slice(start, end));
      start = end;
    }
  }
}

/** The most UTF-16 units in one delta message: 64 Ki units are at most 192 KiB of UTF-8. */
export const maxDeltaChars = 64 * 1024;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
