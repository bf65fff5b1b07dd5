/**
 * A second thread for the scan's lstats. The full walk lstats every captured path (the plan of a
 * restore and its WORKSPACE_CHANGED check need the working tree as it is now); on a large tree
 * that is most of a scan, and one thread leaves the machine's other core idle (git's index
 * refresh lstats from several threads too). At the start of a walk, the last part of the paths
 * the cache knows is sent to a worker thread, which lstats them while the scan works through the
 * first part; the scan takes each answer it finds when it gets to that path and lstats any other
 * path itself, so a slow, dead or missing worker only costs the parallelism, never an answer.
 * The numbers are taken during the walk (never reused by a later one), exactly as the scan's own.
 */
import { constants } from "node:fs";
import { Worker } from "node:worker_threads";

/** Per path: mode, size, mtimeMs, ctimeMs, ino, nlink. */
export const statFields = 6;

export interface PrefetchAsk {
  id: number;
  /** The workspace's real path; `paths` are relative to it, one per line. */
  workspace: string;
  paths: string;
}

export interface PrefetchAnswer {
  id: number;
  values: Float64Array;
}

/** What a scan reads of an lstat (node's Stats has all of it). */
export interface EntryStats {
  mode: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  nlink: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

class PrefetchedStats implements EntryStats {
  constructor(
    readonly mode: number,
    readonly size: number,
    readonly mtimeMs: number,
    readonly ctimeMs: number,
    readonly ino: number,
    readonly nlink: number,
  ) {}

  isFile(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFREG;
  }

  isDirectory(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFDIR;
  }

  isSymbolicLink(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFLNK;
  }
}

/** One walk's request: answers arrive while the walk yields to the event loop. */
export class PrefetchRequest {
  private values: Float64Array | undefined;
  private index: Map<string, number> | undefined;

  constructor(private readonly paths: readonly string[]) {}

  /** The worker's lstat of `path` if it has arrived (each is handed out once), else undefined. */
  take(path: string): EntryStats | undefined {
    if (this.values === undefined) return undefined;
    this.index ??= new Map(this.paths.map((p, i) => [p, i]));
    const i = this.index.get(path);
    if (i === undefined) return undefined;
    this.index.delete(path);
    const at = i * statFields;
    const v = this.values;
    if (Number.isNaN(v[at])) return undefined;
    return new PrefetchedStats(v[at], v[at + 1], v[at + 2], v[at + 3], v[at + 4], v[at + 5]);
  }

  /** @internal the worker's answer. */
  fill(values: Float64Array): void {
    if (values.length === this.paths.length * statFields) this.values = values;
  }
}

/** Walks with fewer cached paths than this lstat on their own thread only (the hand-over costs more than it saves). */
export const minPrefetchPaths = 2000;
/** After this many worker failures the prefetcher stops starting workers. */
const maxWorkerFailures = 3;

/**
 * Owns the worker thread (started on first use, kept for the next walk, unref'd so it never keeps
 * the process alive); `close` ends it. One per service (injected through the context).
 */
export class StatPrefetcher {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, PrefetchRequest>();
  private failures = 0;

  constructor(private readonly workerUrl: URL = new URL("./lstat-worker.js", import.meta.url)) {}

  /**
   * Starts lstats of `paths` (workspace-relative, no name that needs its raw bytes) on the worker
   * thread. Returns undefined when there is no worker to ask. `done` must be called when the walk
   * ends: an answer arriving later is dropped.
   */
  request(workspace: string, paths: readonly string[]): { request: PrefetchRequest; done: () => void } | undefined {
    const worker = this.ensureWorker();
    if (worker === undefined || paths.length === 0) return undefined;
    const id = this.nextId++;
    const request = new PrefetchRequest(paths);
    this.pending.set(id, request);
    const ask: PrefetchAsk = { id, workspace, paths: paths.join("\n") };
    worker.postMessage(ask);
    return { request, done: () => this.pending.delete(id) };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.pending.clear();
    if (worker !== undefined) await worker.terminate();
  }

  private ensureWorker(): Worker | undefined {
    if (this.worker !== undefined) return this.worker;
    if (this.failures >= maxWorkerFailures) return undefined;
    let worker: Worker;
    try {
      worker = new Worker(this.workerUrl);
    } catch {
      this.failures++;
      return undefined;
    }
    worker.unref();
    worker.on("message", (answer: PrefetchAnswer) => {
      this.pending.get(answer.id)?.fill(answer.values);
      this.pending.delete(answer.id);
    });
    const lost = () => {
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on("error", () => { this.failures++; lost(); });
    worker.on("exit", lost);
    this.worker = worker;
    return worker;
  }
}
