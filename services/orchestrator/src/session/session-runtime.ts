import type { AgentEventPayload, AgentEventType } from "@aide/contracts";
import { ApprovalWaiter } from "../approvals/approval-waiter.js";
import type { EventSink } from "../events/event-sink.js";
import type { SessionRecord } from "./session-record.js";
import type { SessionStore } from "./session-store.js";

/**
 * One session loaded in this process: its durable record, the waiters of its pending approvals
 * and the abort switch of its current run. Every change to the record is followed by `persist`.
 */
export class SessionRuntime {
  readonly waiter: ApprovalWaiter;
  abortController = new AbortController();
  /** Resolves when the current run's loop has returned. */
  running?: Promise<void>;
  /** Set while this process runs the session: every write renews the lease. */
  lease?: { owner: string; ms: number };

  constructor(
    public record: SessionRecord,
    private readonly store: SessionStore,
    private readonly events: EventSink,
    private readonly now: () => Date,
  ) {
    this.waiter = new ApprovalWaiter(now);
  }

  emit<T extends AgentEventType>(type: T, payload: AgentEventPayload<T>, depth = 0, run?: string): Promise<void> {
    const scope = { session: this.record.id, run: run ?? this.record.run ?? "none", user: this.record.user, depth };
    return this.events.emit(scope, this.record, type, payload);
  }

  persist(): Promise<void> {
    const now = this.now();
    this.record.updated_at = now.toISOString();
    if (this.lease) {
      this.record.owner = this.lease.owner;
      this.record.lease_until = new Date(now.getTime() + this.lease.ms).toISOString();
    }
    return this.store.put(this.record);
  }

  get signal(): AbortSignal {
    return this.abortController.signal;
  }
}
