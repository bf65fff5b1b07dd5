/**
 * A second thread for the scan's lstats. The full walk lstats every captured path (the plan of a
 * restore and its WORKSPACE_CHANGED check need the working tree as it is now); on a large tree
 * that is most of a scan, and one thread leaves the machine's other core idle (git's index
 * refresh lstats from several threads too). At the start of a walk the paths the cache knows
 * are put on a shared board (stat-claims.ts) that the walk claims from the front and this
 * thread from the back, so no path is lstatted twice and the walk never waits for more than the
 * one lstat the worker may be in; a slow, dead or missing worker only costs the parallelism.
 */
import { Worker } from "node:worker_threads";
import { ClaimedStats, createClaimBoard } from "./stat-claims.js";

export interface PrefetchAsk {
  /** The workspace's real path; `paths` are relative to it, one per line ("" for a slot to leave alone). */
  workspace: string;
  /** Absent: the same paths as in this worker's previous ask (a tree whose paths did not change is not sent again). */
  paths?: string;
  board: SharedArrayBuffer;
}

/** Walks with fewer cached paths than this lstat on their own thread only (the hand-over costs more than it saves). */
export const minPrefetchPaths = 2000;
/** After this many worker failures the prefetcher stops starting workers. */
const maxWorkerFailures = 3;
/** How long the walk waits for a path the worker is lstatting before it lstats it itself. */
const defaultClaimWaitMs = 5;

export interface StatPrefetcherOptions {
  /** The worker's module (the built lstat-worker.js next to this file by default). */
  workerUrl?: URL;
  /** Bound of the walk's wait for a path the worker claimed but has not finished. */
  claimWaitMs?: number;
}

/**
 * Owns the worker thread (started by `start`, or on first use; kept for the next walk; unref'd so
 * it never keeps the process alive); `close` ends it. One per service (injected through the context).
 */
export class StatPrefetcher {
  private worker: Worker | undefined;
  /** The paths of the last ask sent to `worker` (it keeps them). */
  private sent: { workspace: string; paths: readonly string[] } | undefined;
  private failures = 0;
  private closed = false;
  private readonly workerUrl: URL;
  private readonly claimWaitMs: number;

  constructor(options: StatPrefetcherOptions = {}) {
    this.workerUrl = options.workerUrl ?? new URL("./lstat-worker.js", import.meta.url);
    this.claimWaitMs = options.claimWaitMs ?? defaultClaimWaitMs;
  }

  /** Starts the worker now (at service start), so the first walk finds it loaded. */
  start(): void {
    this.ensureWorker();
  }

  /**
   * Puts `paths` (workspace-relative, in the order the walk will most likely visit them; "" for
   * a slot neither side takes) on a new board and hands it to the worker. Returns the walk's
   * side, or undefined when there is no worker. The walk must call `finish` when it ends.
   */
  request(workspace: string, paths: readonly string[]): ClaimedStats | undefined {
    const worker = this.ensureWorker();
    if (worker === undefined || paths.length === 0) return undefined;
    const board = createClaimBoard(paths.length);
    // Comparing the list is a tenth of the cost of joining and copying it to the worker.
    const unchanged = this.sent !== undefined && this.sent.workspace === workspace && samePaths(this.sent.paths, paths);
    const ask: PrefetchAsk = { workspace, board: board.buffer, ...(unchanged ? {} : { paths: paths.join("\n") }) };
    worker.postMessage(ask);
    this.sent = { workspace, paths };
    return new ClaimedStats(board, workspace, paths, this.claimWaitMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private ensureWorker(): Worker | undefined {
    if (this.worker !== undefined) return this.worker;
    if (this.closed || this.failures >= maxWorkerFailures) return undefined;
    let worker: Worker;
    try {
      worker = new Worker(this.workerUrl);
    } catch {
      this.failures++;
      return undefined;
    }
    worker.unref();
    this.sent = undefined;
    // A worker that fails or ends on its own counts as a failure; a new one is started at once
    // (warm for the next walk) until maxWorkerFailures.
    const lost = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failures++;
      this.ensureWorker();
    };
    worker.on("error", lost);
    worker.on("exit", lost);
    this.worker = worker;
    return worker;
  }
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
