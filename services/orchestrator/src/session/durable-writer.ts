import type { Logger } from "pino";
import type { PauseReason } from "@aide/contracts";
import { isDiskFullError } from "../bus/jetstream-errors.js";
import { publishRetryDelay } from "../events/publish-retry.js";
import { LeaseLostError } from "./session-store.js";

export interface DurableWriterOptions {
  /** One attempt to store the record as it is now; rejects when the store did not take it. */
  write(): Promise<void>;
  /** Failing this long, the run counts as paused (`onPause`); the writer keeps trying. */
  pauseAfterMs: number;
  /** Called once when writes have failed for `pauseAfterMs`; must not throw. */
  onPause(reason: PauseReason, detail: string): void;
  /** Called once when a write lands after `onPause`; must not throw. */
  onResume(): void;
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Writes a session record until the store takes it. Requests coalesce: each write stores the
 * record as it is at that moment, so a caller's promise resolves once a write that started after
 * its request landed. A write that keeps failing is retried with backoff, without limit: past
 * `pauseAfterMs` the run is reported paused (the loop, awaiting the write before its next side
 * effect, waits too), and it resumes by itself when the store is back. Only a takeover by another
 * instance (`LeaseLostError`) rejects.
 */
export class DurableWriter {
  private requested = false;
  /** True from the first request until the loop sees no request left (cleared in the same tick). */
  private writing = false;
  private waiting: Array<{ resolve(): void; reject(error: unknown): void }> = [];
  private paused = false;
  private lost?: LeaseLostError;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: DurableWriterOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  request(): Promise<void> {
    if (this.lost) return Promise.reject(this.lost);
    this.requested = true;
    const done = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    if (!this.writing) {
      this.writing = true;
      void this.run();
    }
    return done;
  }

  /** True while writes fail and the run is reported paused. */
  isPaused(): boolean {
    return this.paused;
  }

  private async run(): Promise<void> {
    try {
      while (this.requested) {
        this.requested = false;
        const batch = this.waiting.splice(0);
        try {
          await this.writeUntilStored();
          for (const waiter of batch) waiter.resolve();
        } catch (error) {
          for (const waiter of [...batch, ...this.waiting.splice(0)]) waiter.reject(error);
          this.requested = false;
          return;
        }
      }
    } finally {
      // Synchronously after the last check of `requested`: a request made from now on starts a new loop.
      this.writing = false;
    }
  }

  private async writeUntilStored(): Promise<void> {
    const started = this.now();
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.options.write();
        if (this.paused) {
          this.paused = false;
          this.options.logger.info({ attempts: attempt }, "the session store is back; the run resumes");
          this.options.onResume();
        }
        return;
      } catch (error) {
        if (error instanceof LeaseLostError) {
          this.lost = error;
          throw error;
        }
        const level = attempt === 1 || attempt % 20 === 0 ? "warn" : "debug";
        this.options.logger[level]({ err: error, attempt }, "session write failed; retrying");
        if (!this.paused && this.now() - started >= this.options.pauseAfterMs) {
          this.paused = true;
          const detail = error instanceof Error ? error.message : String(error);
          this.options.onPause(isDiskFullError(error) ? "disk_full" : "store_unavailable", detail || "no answer");
        }
        await this.sleep(publishRetryDelay(attempt));
      }
    }
  }
}
