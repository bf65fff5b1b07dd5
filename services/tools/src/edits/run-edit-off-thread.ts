import { Worker } from "node:worker_threads";
import { asBuffer, runEditJob, type EditJob } from "./edit-job.js";
import { refuse, type EditOutcome } from "./edit-outcome.js";

export interface OffThreadOptions {
  signal: AbortSignal;
  /** Whole job bytes below which matching stays on the calling thread (a worker costs ~30 ms to start). */
  inlineBelowBytes?: number;
  timeoutMs?: number;
  /** The compiled worker entry (tests of the source point at dist/). */
  workerUrl?: URL;
  /** Called when the job goes to a worker thread. */
  onOffThread?(bytes: number): void;
}

const defaultInlineBelowBytes = 32 * 1024;
const defaultTimeoutMs = 20_000;

function jobBytes(job: EditJob): number {
  const text =
    job.kind === "search_replace"
      ? job.blocks.reduce((sum, b) => sum + b.search.length + b.replace.length, 0)
      : job.patch.hunks.reduce((sum, h) => sum + h.lines.reduce((s, l) => s + l.text.length + 1, 0), 0);
  return (job.before?.length ?? 0) + text;
}

/**
 * Runs the matching of a large edit in a worker thread so a big miss (its closest-lines search is
 * the expensive part) never stalls the service's event loop; bounded by a timeout and the call's
 * abort signal, either of which ends the thread. Small edits run inline.
 */
export function runEditOffThread(job: EditJob, options: OffThreadOptions): Promise<EditOutcome> {
  const bytes = jobBytes(job);
  if (bytes < (options.inlineBelowBytes ?? defaultInlineBelowBytes)) return Promise.resolve(runEditJob(job));
  options.onOffThread?.(bytes);
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  return new Promise<EditOutcome>((resolve, reject) => {
    const worker = new Worker(options.workerUrl ?? new URL("./edit-worker.js", import.meta.url));
    let settled = false;
    const finish = (outcome: EditOutcome | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome.ok ? { ...outcome, after: asBuffer(outcome.after) } : outcome);
    };
    const onAbort = () => finish(refuse("TIMEOUT", "The edit was stopped before its lines were matched; nothing was written."));
    const timer = setTimeout(() => finish(refuse("TIMEOUT", `Matching the edit took longer than ${timeoutMs} ms and was stopped; nothing was written. Use smaller blocks.`)), timeoutMs);
    options.signal.addEventListener("abort", onAbort, { once: true });
    if (options.signal.aborted) onAbort();
    worker.once("message", (outcome: EditOutcome) => finish(outcome));
    worker.on("error", (error) => finish(error));
    worker.once("exit", (code) => finish(new Error(`the edit worker exited with code ${code} before answering`)));
    worker.postMessage(job);
  });
}
