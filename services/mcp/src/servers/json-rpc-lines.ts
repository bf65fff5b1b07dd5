/** The longest line a server may send (the SDK's own stdio bound): past it the server is failed. */
export const maxLineBytes = 10 * 1024 * 1024;

export class LineTooLongError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the server sent a line of more than ${limit} bytes without a newline`);
  }
}

/**
 * Splits a server's stdout into lines (newline-delimited JSON-RPC, a trailing CR dropped). Bytes
 * of an unfinished line are kept as chunks and joined once, when its newline arrives; a line
 * longer than `limit` throws `LineTooLongError` and clears what was kept, so a server cannot grow
 * this process's memory without bound.
 */
export class JsonRpcLines {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly limit = maxLineBytes) {}

  /** The lines this chunk completes, in order. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      this.check(this.pendingBytes + piece.length);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.clear();
      const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
      lines.push(line.toString("utf8", 0, end));
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.check(this.pendingBytes + rest.length);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return lines;
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private check(bytes: number): void {
    if (bytes <= this.limit) return;
    this.clear();
    throw new LineTooLongError(bytes, this.limit);
  }
}
