import type { ChildProcess } from "node:child_process";

/** A message the server sent that is not an answer to ours: a notification, or a request to the client. */
export interface ServerMessage {
  method: string;
  params: unknown;
}

/**
 * JSON-RPC over a language server's stdio (LSP base protocol: `Content-Length` headers, then the
 * body). Requests from the server to the client (`workspace/configuration`, capability
 * registration, progress tokens) are answered with the client's defaults; notifications go to
 * `onNotification`. A body that is not JSON is skipped, never thrown.
 */
export class LspConnection {
  private buffered = Buffer.alloc(0);
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();

  constructor(
    private readonly child: ChildProcess,
    private readonly onNotification: (message: ServerMessage) => void,
  ) {
    child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
    child.stdin?.on("error", () => undefined);
  }

  private write(message: Record<string, unknown>): void {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8");
    this.child.stdin?.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.write({ id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.write({ method, params });
  }

  /** Every request still waiting is rejected (the server was stopped). */
  closeAll(reason: string): void {
    for (const waiter of this.waiting.values()) waiter.reject(new Error(reason));
    this.waiting.clear();
  }

  private receive(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const headerEnd = this.buffered.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const length = /content-length:\s*(\d+)/i.exec(this.buffered.subarray(0, headerEnd).toString("ascii"));
      if (length === null) {
        // Not a header: drop up to the separator and look again.
        this.buffered = this.buffered.subarray(headerEnd + 4);
        continue;
      }
      const start = headerEnd + 4;
      const end = start + Number(length[1]);
      if (this.buffered.length < end) return;
      const body = this.buffered.subarray(start, end).toString("utf8");
      this.buffered = this.buffered.subarray(end);
      let message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { message?: string } };
      try {
        message = JSON.parse(body) as typeof message;
      } catch {
        continue;
      }
      this.dispatch(message);
    }
  }

  private dispatch(message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { message?: string } }): void {
    if (message.method !== undefined && message.id !== undefined) {
      this.write({ id: message.id, result: defaultAnswer(message.method, message.params) });
      return;
    }
    if (message.method !== undefined) {
      this.onNotification({ method: message.method, params: message.params });
      return;
    }
    if (typeof message.id !== "number") return;
    const waiter = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(message.error.message ?? "the language server refused the request"));
    else waiter?.resolve(message.result);
  }
}

/** The client's answer to a server request: no settings of its own (the server's defaults and the project's config file apply). */
function defaultAnswer(method: string, params: unknown): unknown {
  if (method === "workspace/configuration") {
    const items = (params as { items?: unknown[] } | undefined)?.items;
    return Array.isArray(items) ? items.map(() => null) : [];
  }
  return null;
}
