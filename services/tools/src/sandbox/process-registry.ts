import type { Logger } from "pino";
import type { RunningCommand, Sandbox, SandboxRunOptions, SandboxRunResult } from "./sandbox.js";

export interface BackgroundProcess {
  id: string;
  session: string;
  command: string;
  startedAt: number;
  lastPolledAt: number;
  running: RunningCommand;
  result?: SandboxRunResult;
  /** Bytes of output already returned by poll. */
  readBytes: number;
}

export interface ProcessRegistry {
  start(session: string, command: string, options: SandboxRunOptions): Promise<BackgroundProcess>;
  get(session: string, id: string): BackgroundProcess | undefined;
  list(session: string): BackgroundProcess[];
  /** Kills one process and resolves once it and its children are reaped. */
  cancel(session: string, id: string): Promise<BackgroundProcess | undefined>;
  /** Kills every background process of a session (or all when omitted); resolves when reaped. */
  closeAll(session?: string): Promise<void>;
}

export interface ProcessRegistryOptions {
  sandbox: Sandbox;
  logger: Logger;
  maxPerSession?: number;
  maxTotal?: number;
  /** A session whose processes nobody polled for this long has ended: they are killed. */
  idleMs?: number;
  now?: () => number;
}

/**
 * Background processes (servers, watchers), sandboxed like run_command, each with bounded output.
 * There is no session-closed message on the bus, so a session's processes are reaped when nobody
 * polled them for `idleMs`, at their own timeout, or when the service stops.
 */
export function createProcessRegistry(options: ProcessRegistryOptions): ProcessRegistry & { sweep(): Promise<void> } {
  const processes = new Map<string, BackgroundProcess>();
  const now = options.now ?? (() => Date.now());
  const idleMs = options.idleMs ?? 15 * 60_000;
  let counter = 0;
  const key = (session: string, id: string) => `${session}/${id}`;

  const reap = async (process: BackgroundProcess) => {
    process.running.cancel();
    process.result = await process.running.finished;
  };

  const registry = {
    async start(session: string, command: string, runOptions: SandboxRunOptions) {
      const ofSession = [...processes.values()].filter((p) => p.session === session && p.result === undefined);
      if (ofSession.length >= (options.maxPerSession ?? 4))
        throw new Error(`at most ${options.maxPerSession ?? 4} background processes run per session; cancel one first (running: ${ofSession.map((p) => p.id).join(", ")})`);
      if ([...processes.values()].filter((p) => p.result === undefined).length >= (options.maxTotal ?? 32)) throw new Error("too many background processes are running on this service");
      counter += 1;
      const id = `p${counter}`;
      const running = await options.sandbox.start(runOptions, `bg${counter}`);
      const entry: BackgroundProcess = { id, session, command, startedAt: now(), lastPolledAt: now(), running, readBytes: 0 };
      processes.set(key(session, id), entry);
      void running.finished.then((result) => {
        entry.result = result;
        options.logger.info({ session, id, exit: result.exitCode, timed_out: result.timedOut }, "background process ended");
      });
      return entry;
    },
    get: (session: string, id: string) => processes.get(key(session, id)),
    list: (session: string) => [...processes.values()].filter((p) => p.session === session),
    async cancel(session: string, id: string) {
      const entry = processes.get(key(session, id));
      if (entry === undefined) return undefined;
      if (entry.result === undefined) await reap(entry);
      return entry;
    },
    async closeAll(session?: string) {
      const targets = [...processes.values()].filter((p) => session === undefined || p.session === session);
      await Promise.all(targets.map((p) => (p.result === undefined ? reap(p) : Promise.resolve())));
      for (const p of targets) processes.delete(key(p.session, p.id));
    },
    async sweep() {
      const stale = [...processes.values()].filter((p) => now() - p.lastPolledAt > idleMs);
      for (const p of stale) {
        if (p.result === undefined) options.logger.info({ session: p.session, id: p.id }, "reaping an idle background process");
        await (p.result === undefined ? reap(p) : Promise.resolve());
        processes.delete(key(p.session, p.id));
      }
    },
  };
  return registry;
}
