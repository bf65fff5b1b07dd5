/**
 * Keeps the first and the last `half` bytes of a stream and counts everything, so a command that
 * prints 50 MB comes back as head + one marker + tail with the true totals.
 */
export class HeadTailBuffer {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  totalBytes = 0;
  newlines = 0;
  private lastByte = -1;

  constructor(private readonly half: number) {}

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) this.newlines += 1;
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1];
    let rest = chunk;
    if (this.headBytes < this.half) {
      const take = rest.subarray(0, this.half - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.half) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  get truncated(): boolean {
    return this.totalBytes > this.headBytes + Math.min(this.tailBytes, this.half);
  }

  get totalLines(): number {
    return this.newlines + (this.totalBytes > 0 && this.lastByte !== 0x0a ? 1 : 0);
  }

  /** The text with exactly one truncation marker when bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    let tailBuffer = Buffer.concat(this.tail);
    if (tailBuffer.length > this.half) tailBuffer = tailBuffer.subarray(tailBuffer.length - this.half);
    if (!this.truncated) return head + tailBuffer.toString("utf8");
    const omitted = this.totalBytes - this.headBytes - tailBuffer.length;
    return `${head}\n[... output truncated: ${omitted} bytes omitted; the full output was ${this.totalBytes} bytes in ${this.totalLines} lines ...]\n${tailBuffer.toString("utf8")}`;
  }

  /** Output from byte `offset` on, as far as it is still held; a skipped middle is marked once. */
  since(offset: number): { text: string; skippedBytes: number } {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.half) tail = tail.subarray(tail.length - this.half);
    const tailStart = this.totalBytes - tail.length;
    if (offset >= this.totalBytes) return { text: "", skippedBytes: 0 };
    if (offset >= tailStart) return { text: tail.subarray(offset - tailStart).toString("utf8"), skippedBytes: 0 };
    if (offset < head.length) {
      const gap = tailStart - head.length;
      const middle = gap > 0 ? `\n[... ${gap} bytes of output not kept ...]\n` : "";
      return { text: head.subarray(offset).toString("utf8") + middle + tail.toString("utf8"), skippedBytes: Math.max(0, gap) };
    }
    const skipped = tailStart - offset;
    return { text: `[... ${skipped} bytes of output not kept ...]\n${tail.toString("utf8")}`, skippedBytes: skipped };
  }
}
