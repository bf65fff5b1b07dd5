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
    this.send(text);
  }
}
