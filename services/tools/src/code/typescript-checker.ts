import { spawn, type ChildProcess } from "node:child_process";
import type { Logger } from "pino";
import type { Diagnostic } from "./diagnostic.js";
import type { WorkerCommand } from "./diagnostics-worker-command.js";
import type { CheckOutcome, Checker } from "./checker.js";

export type { CheckOutcome } from "./checker.js";

interface Worker {
  child: ChildProcess;
  pending: Map<number, (outcome: CheckOutcome) => void>;
  idle?: NodeJS.Timeout;
}

export interface TypeScriptCheckerOptions {
  command: WorkerCommand;
  logger?: Logger;
  /** A check that takes longer kills its worker (the next check starts a new one). */
  timeoutMs: number;
  /** A worker that got no request this long is stopped. */
  idleMs: number;
  /** Warm workers at most (each holds a program in memory); starting one more stops the least recently used. Default 4. */
  maxWorkers?: number;
}

/**
 * One warm TypeScript worker process per workspace root, started on first use, reused, stopped
 * when idle, and killed (with its requests answered as timed out) when a check passes its timeout.
 */
export class TypeScriptChecker implements Checker {
  readonly source = "typescript";
  private readonly workers = new Map<string, Worker>();
  private nextId = 1;

  constructor(private readonly options: TypeScriptCheckerOptions) {}

  private start(root: string): Worker {
    const oldest = this.workers.entries().next().value as [string, Worker] | undefined;
    if (oldest !== undefined && this.workers.size >= (this.options.maxWorkers ?? 4)) this.stop(oldest[0], oldest[1], "too many workspaces with a warm checker; the least recently used was stopped");
    const { file, args } = this.options.command(root);
    const child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"] });
    const worker: Worker = { child, pending: new Map() };
    let buffered = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          const reply = JSON.parse(line) as { id: number; results?: Diagnostic[][]; error?: string };
          const resolve = worker.pending.get(reply.id);
          worker.pending.delete(reply.id);
          resolve?.(reply.results !== undefined ? { ok: true, results: reply.results } : { ok: false, timedOut: false, message: reply.error ?? "no result" });
        } catch {
          // not a reply line
        }
      }
    });
    child.stderr?.on("data", () => undefined);
    child.stdin?.on("error", () => undefined);
    child.on("error", (error) => this.stop(root, worker, `the TypeScript checker did not start: ${error.message}`));
    child.on("exit", (code, signal) => this.stop(root, worker, `the TypeScript checker exited (${signal ?? code})`));
    this.workers.set(root, worker);
    this.options.logger?.info({ root, pid: child.pid }, "typescript checker started");
    return worker;
  }

  private stop(root: string, worker: Worker, message: string, timedOut = false): void {
    if (this.workers.get(root) === worker) this.workers.delete(root);
    if (worker.idle !== undefined) clearTimeout(worker.idle);
    if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
    for (const resolve of worker.pending.values()) resolve({ ok: false, timedOut, message, ...(worker.child.pid !== undefined ? { workerPid: worker.child.pid } : {}) });
    worker.pending.clear();
  }

  /** The diagnostics of workspace file `path` for each text in `versions`. Never throws. */
  check(root: string, path: string, versions: string[], signal?: AbortSignal): Promise<CheckOutcome> {
    const worker = this.workers.get(root) ?? this.start(root);
    // Most recently used last, so the first entry is the one to stop when another must start.
    this.workers.delete(root);
    this.workers.set(root, worker);
    if (worker.idle !== undefined) clearTimeout(worker.idle);
    const id = this.nextId++;
    return new Promise<CheckOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.options.logger?.warn({ root, pid: worker.child.pid, timeout_ms: this.options.timeoutMs }, "typescript checker timed out; killed");
        this.stop(root, worker, `the TypeScript checker did not answer in ${this.options.timeoutMs} ms and was stopped`, true);
      }, this.options.timeoutMs);
      const onAbort = () => this.stop(root, worker, "the call was stopped", true);
      signal?.addEventListener("abort", onAbort, { once: true });
      worker.pending.set(id, (outcome) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (this.workers.get(root) === worker && worker.pending.size === 0) {
          worker.idle = setTimeout(() => this.stop(root, worker, "idle"), this.options.idleMs);
          worker.idle.unref();
        }
        resolve(outcome);
      });
      worker.child.stdin?.write(`${JSON.stringify({ id, root, path, versions })}\n`);
    });
  }

  close(): void {
    for (const [root, worker] of [...this.workers]) this.stop(root, worker, "the service stopped");
  }
}
