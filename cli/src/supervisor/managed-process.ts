import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { shutdownGraceMsFromEnv, shutdownMarginMs, type Logger } from "@aide/runtime";
import type { ServiceDefinition } from "./service-table.js";

/** How to start the process: plain node, or node inside a bubblewrap sandbox. */
export interface Launcher {
  /** argv[0] and the rest; `infoFd` is where bubblewrap reports the sandboxed child's pid. */
  command(definition: ServiceDefinition, infoFd: number): { file: string; args: string[]; sandboxed: boolean };
}

export const plainLauncher: Launcher = {
  command: (definition) => ({ file: process.execPath, args: [definition.entry, ...definition.args], sandboxed: false }),
};

export interface ManagedProcessOptions {
  definition: ServiceDefinition;
  launcher?: Launcher;
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
  /** The service's own process when it runs inside a sandbox (the launcher's pid otherwise). */
  private innerPid: number | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private startedAt = 0;
  restarts = 0;

  constructor(private readonly options: ManagedProcessOptions) {
    this.delayMs = options.backoff?.initialMs ?? 250;
  }

  /** The service's node process (inside the sandbox when there is one). */
  get pid(): number | undefined {
    return this.innerPid ?? this.child?.pid;
  }

  /** The process the supervisor started (bubblewrap when sandboxed). */
  get launcherPid(): number | undefined {
    return this.child?.pid;
  }

  get name(): string {
    return this.options.definition.name;
  }

  start(): void {
    const { definition, logFile, logger } = this.options;
    const fd = openSync(logFile, "a", 0o600);
    const launch = (this.options.launcher ?? plainLauncher).command(definition, 3);
    const child = spawn(launch.file, launch.args, {
      env: launch.sandboxed ? { PATH: definition.env.PATH ?? "/usr/bin:/bin" } : definition.env,
      stdio: ["ignore", fd, fd, launch.sandboxed ? "pipe" : "ignore"],
    });
    closeSync(fd);
    this.child = child;
    this.innerPid = undefined;
    this.startedAt = Date.now();
    if (launch.sandboxed) this.readInnerPid(child);
    logger.info({ service: definition.name, pid: child.pid, sandboxed: launch.sandboxed }, "service started");
    if (child.pid) this.options.onStart?.(child.pid);
    child.once("exit", (code, signal) => this.onExit(child, code, signal));
    child.once("error", (error) => logger.error({ service: definition.name, err: error }, "spawn failed"));
  }

  /**
   * bubblewrap writes `{"child-pid": N}` (its reaper, PID 1 inside) on the info fd; the service is
   * that reaper's child. Signals go to the service itself so it can drain.
   */
  private readInnerPid(child: ChildProcess): void {
    const stream = child.stdio[3] as Readable | null;
    if (!stream) return;
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (!match) return;
      const reaper = Number(match[1]);
      const find = (attempt: number) => {
        if (this.child !== child) return;
        try {
          const children = readFileSync(`/proc/${reaper}/task/${reaper}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
          if (children.length > 0) {
            this.innerPid = Number(children[0]);
            this.options.onStart?.(this.innerPid);
            return;
          }
        } catch {
          // the reaper has not forked yet, or is gone
        }
        if (attempt < 100) setTimeout(() => find(attempt + 1), 20).unref();
      };
      find(0);
    });
    stream.on("error", () => undefined);
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

  /** Stops the process and starts it again (the launcher rebuilds its sandbox). */
  async restart(): Promise<void> {
    await this.stop();
    this.stopping = false;
    this.restarts += 1;
    this.start();
  }

  /**
   * SIGTERM, then SIGKILL after graceMs (default: the services' shutdown grace, in which they
   * answer every request they took, plus their margin and a second); resolves once it is gone.
   */
  async stop(graceMs = shutdownGraceMsFromEnv() + shutdownMarginMs + 1_000): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    if (this.innerPid) {
      try {
        process.kill(this.innerPid, "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
    } else {
      child.kill("SIGTERM");
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
