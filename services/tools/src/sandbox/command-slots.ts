import { createFairQueue } from "@aide/runtime";

export interface CommandSlots {
  /**
   * Waits for a free slot: sessions take turns (round-robin), FIFO within a session; past the
   * session's or the whole queue's bound the caller gets BUSY with `details.retry_after_ms`
   * (the call has not run, so the orchestrator retries it). Returns the release function.
   */
  acquire(signal?: AbortSignal, session?: string): Promise<() => void>;
  inUse(): number;
  waiting(): number;
}

/**
 * A bounded queue in front of the sandbox so a burst of commands cannot overload a small machine,
 * fair across sessions: one session's burst cannot make another's single command wait for all of it.
 */
export function createCommandSlots(concurrency: number, maxWaiting: number, maxWaitingPerSession = maxWaiting): CommandSlots {
  const queue = createFairQueue({ concurrency, maxQueued: maxWaiting, maxQueuedPerKey: Math.min(maxWaiting, maxWaitingPerSession), what: "commands" });
  return {
    inUse: () => queue.active(),
    waiting: () => queue.waiting(),
    acquire: (signal, session = "") => queue.acquire(session, signal),
  };
}
