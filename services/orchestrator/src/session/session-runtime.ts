import type { Logger } from "pino";
import type { AgentEventPayload, AgentEventType, PauseReason } from "@aide/contracts";
import { ApprovalWaiter } from "../approvals/approval-waiter.js";
import type { EventSink } from "../events/event-sink.js";
import { DurableWriter } from "./durable-writer.js";
import type { SessionRecord } from "./session-record.js";
import { LeaseLostError, type SessionStore } from "./session-store.js";

export interface SessionRuntimeOptions {
  /** Writes failing this long pause the run (`AIDE_STORE_PAUSE_AFTER_MS`). */
  pauseAfterMs: number;
  logger: Logger;
}

/**
 * One session loaded in this process: its durable record, the waiters of its pending approvals
 * and the abort switch of its current run. Every change to the record is followed by `persist`,
 * which resolves once the store took it (retrying while the store is away; the run is `paused`
 * meanwhile and resumes by itself).
 */
export class SessionRuntime {
  readonly waiter: ApprovalWaiter;
  abortController = new AbortController();
  /** Resolves when the current run's loop has returned. */
  running?: Promise<void>;
  /** Set while this process runs the session: every write renews the lease. */
  lease?: { owner: string; ms: number };
  /** Another instance took the session over: this process publishes and writes nothing more for it. */
  leaseLost = false;
  private readonly writer: DurableWriter;
  private readonly logger: SessionRuntimeOptions["logger"];

  constructor(
    public record: SessionRecord,
    private readonly store: SessionStore,
    private readonly events: EventSink,
    private readonly now: () => Date,
    options: SessionRuntimeOptions,
  ) {
    this.waiter = new ApprovalWaiter(now);
    const logger = options.logger.child({ session: record.id });
    this.logger = logger;
    this.writer = new DurableWriter({
      write: () => this.store.put(this.stamped()),
      pauseAfterMs: options.pauseAfterMs,
      onPause: (reason, detail) => this.pause(reason, detail),
      onResume: () => this.resume("store_unavailable"),
      logger,
    });
  }

  emit<T extends AgentEventType>(type: T, payload: AgentEventPayload<T>, depth = 0, run?: string): Promise<void> {
    if (this.leaseLost) return Promise.resolve();
    const settings = this.record.experiment;
    const scope = {
      session: this.record.id,
      run: run ?? this.record.run ?? "none",
      user: this.record.user,
      depth,
      ...(settings?.scheduler ? { scheduler: settings.scheduler } : {}),
      ...(settings?.context_policy ? { context_policy: settings.context_policy } : {}),
    };
    return this.events.emit(scope, this.record, type, payload);
  }

  persist(): Promise<void> {
    return this.writer.request().catch((error: unknown) => {
      if (error instanceof LeaseLostError) this.loseLease(error);
      throw error;
    });
  }

  /**
   * The run waits (for its store, or for disk space): said once as `run.state paused` with the
   * reason; the status shows `paused` until `resume`. Nothing is re-run on resume: the loop simply
   * continues from where it waited.
   */
  pause(reason: PauseReason, detail: string): void {
    if (this.record.paused || this.leaseLost) return;
    this.logger.warn({ reason, detail }, "the run pauses until it can go on");
    this.record.paused = { reason, detail, since: this.now().toISOString() };
    void this.emit("run.state", { state: "paused", reason, detail });
    this.persist().catch(() => undefined);
  }

  resume(reason: PauseReason): void {
    if (this.record.paused?.reason !== reason) return;
    this.record.paused = undefined;
    void this.emit("run.state", { state: this.record.state });
    this.persist().catch(() => undefined);
  }

  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  private stamped(): SessionRecord {
    const now = this.now();
    this.record.updated_at = now.toISOString();
    if (this.lease) {
      this.record.owner = this.lease.owner;
      this.record.lease_until = new Date(now.getTime() + this.lease.ms).toISOString();
    }
    return this.record;
  }

  private loseLease(error: LeaseLostError): void {
    if (this.leaseLost) return;
    this.leaseLost = true;
    this.logger.warn({ owner: error.owner }, "another instance took the session over; this instance stops running it");
    this.events.discard(this.record.id);
    this.abortController.abort(`taken over by ${error.owner}`);
  }
}
