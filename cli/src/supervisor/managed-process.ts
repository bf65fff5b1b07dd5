import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import type { Logger } from "@aide/runtime";
import type { ServiceDefinition } from "./service-table.js";

export interface ManagedProcessOptions {
  definition: ServiceDefinition;
  logFile: string;
  logger: Logger;
  /** Called after every (re)start with the new pid. */
  onStart?: (pid: number) => void;
  backoff?: { initialMs: number; maxMs: number; resetAfterMs: number };
}

/**
 * One service process: started with its allow-listed environment, stdout/stderr appended to its
 * log file, restarted with exponential back-off when it dies unexpectedly, stopped with SIGTERM
 * then SIGKILL. The child is never detached, so it cannot outlive a clean stop.
 */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private startedAt = 0;
  restarts = 0;

  constructor(private readonly options: ManagedProcessOptions) {
    this.delayMs = options.backoff?.initialMs ?? 250;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get name(): string {
    return this.options.definition.name;
  }

  start(): void {
    const { definition, logFile, logger } = this.options;
    const fd = openSync(logFile, "a", 0o600);
    const child = spawn(process.execPath, [definition.entry, ...definition.args], {
      env: definition.env,
      stdio: ["ignore", fd, fd],
    });
    closeSync(fd);
    this.child = child;
    this.startedAt = Date.now();
    logger.info({ service: definition.name, pid: child.pid }, "service started");
    if (child.pid) this.options.onStart?.(child.pid);
    child.once("exit", (code, signal) => this.onExit(child, code, signal));
    child.once("error", (error) => logger.error({ service: definition.name, err: error }, "spawn failed"));
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    const { logger, definition } = this.options;
    if (this.stopping) {
      logger.info({ service: definition.name, code, signal }, "service stopped");
      return;
    }
    const backoff = this.options.backoff ?? { initialMs: 250, maxMs: 8000, resetAfterMs: 30_000 };
    if (Date.now() - this.startedAt > backoff.resetAfterMs) this.delayMs = backoff.initialMs;
    logger.warn({ service: definition.name, code, signal, restartInMs: this.delayMs }, "service exited; restarting");
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.restarts += 1;
      this.start();
    }, this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, backoff.maxMs);
  }

  /** SIGTERM, then SIGKILL after graceMs; resolves once the process is gone. */
  async stop(graceMs = 8000): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
