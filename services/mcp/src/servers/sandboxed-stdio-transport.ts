import { spawn, type ChildProcess } from "node:child_process";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLines, LineTooLongError } from "./json-rpc-lines.js";

export interface SandboxedLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** The last bytes of a server's stderr, for the reason a start or call failed. */
const stderrKeep = 4096;

/**
 * The MCP stdio transport over a process this service starts itself: in its own process group
 * (so the whole group is killed at close, never left behind), stdin/stdout for JSON-RPC, stderr
 * kept (tail only) for diagnostics. `onclose` fires once, when the process has exited.
 *
 * Each stdout line is handed on JSON-parsed, not yet checked: the SDK's Protocol checks every
 * message against the JSON-RPC request, notification, result and error schemas (its `isJSONRPC*`
 * guards, strict objects) before it uses one, and drops the rest as unknown; the SDK's own
 * `ReadBuffer` parses each line with the union of the same four schemas first, so every reply
 * was checked twice. A call's result is then checked once more, against `CallToolResultSchema`.
 * A line past `maxLineBytes` kills the server (the pending calls fail; it is restarted).
 */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly lines = new JsonRpcLines();
  private stderrTail = "";
  /** Set when a line passed the bound: what the server still writes until it is gone is ignored. */
  private overflowed = false;
  private exitedPromise: Promise<void> | undefined;

  constructor(private readonly launch: SandboxedLaunch) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  stderr(): string {
    return this.stderrTail.trim();
  }

  async start(): Promise<void> {
    if (this.child) throw new Error("transport already started");
    const child = spawn(this.launch.file, this.launch.args, { env: this.launch.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.child = child;
    this.exitedPromise = new Promise((resolve) => child.once("close", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (error) => reject(error));
    });
    child.on("error", (error) => this.onerror?.(error));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (this.overflowed) return;
      let lines: string[];
      try {
        lines = this.lines.push(chunk);
      } catch (error) {
        if (!(error instanceof LineTooLongError)) throw error;
        this.overflowed = true;
        // Kept with the stderr tail, so the server's state (`last_error`) says why it was killed.
        this.stderrTail = `${this.stderrTail}\n[aide] killed: ${error.message}`.slice(-stderrKeep);
        this.onerror?.(error);
        void this.close();
        return;
      }
      for (const line of lines) {
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch (error) {
          // A line that is not JSON (a server printing to stdout): reported, not fatal.
          this.onerror?.(error as Error);
          continue;
        }
        this.onmessage?.(message as JSONRPCMessage);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-stderrKeep);
    });
    child.stdin!.on("error", () => undefined);
    void this.exitedPromise.then(() => {
      this.lines.clear();
      this.onclose?.();
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error("the server process is not running"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /** SIGKILL to the process group (bubblewrap and, through its pid namespace, everything inside); resolves once it exited. */
  async close(): Promise<void> {
    const pid = this.child?.pid;
    if (pid !== undefined && this.child?.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await this.exitedPromise;
  }
}
