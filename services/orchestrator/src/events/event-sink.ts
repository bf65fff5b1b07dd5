import type { Logger } from "pino";
import { AgentEventSchema, eventSubject, experiment, type AgentEventPayload, type AgentEventType } from "@aide/contracts";
import { encodeJson } from "@aide/runtime";
import type { OutboxEntry } from "../session/session-record.js";
import { renderEventPayload } from "./render-event-payload.js";
import { publishRetryDelay, isPermanentPublishError } from "./publish-retry.js";

/**
 * Publishes one encoded event and resolves once the stream stored it (a duplicate the stream
 * already had counts as stored). Rejects when it was not acknowledged; the sink retries.
 */
export type EventPublisher = (subject: string, data: Uint8Array, messageId: string) => Promise<void>;

export interface EventScope {
  session: string;
  run: string;
  user: string;
  depth: number;
  /** The run's scheduler and context policy when its start set them (an eval arm); else the defaults. */
  scheduler?: string;
  context_policy?: string;
}

/**
 * The per-session sequence counter and the outbox live in the session record: the sink increments
 * the one and keeps the other (an event stays in the outbox until the stream acknowledged it).
 */
export interface SequenceHolder {
  last_seq: number;
  outbox: OutboxEntry[];
}

export interface EventSinkOptions {
  publish: EventPublisher;
  now: () => Date;
  logger: Logger;
  /** Sleeps between publish attempts; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

interface Pending {
  entry: OutboxEntry;
  holder: SequenceHolder;
}

interface SessionQueue {
  pending: Pending[];
  worker?: Promise<void>;
}

export function messageIdOf(session: string, seq: number): string {
  return `${session}-${seq}`;
}

/**
 * Builds, validates and publishes run events. Every payload is rendered for screens first
 * (`renderEventPayload`); every event gets the next contiguous per-session `seq`, the envelope
 * and is checked against `AgentEventSchema`.
 *
 * An event counts as published only once the stream acknowledged it: until then it sits in the
 * session record's outbox (so the next write of the record makes it durable with the state change
 * it reports) and is retried with backoff, forever, under the same message id (the stream's
 * duplicate window drops a copy of one that was stored but whose acknowledgement was lost). Each
 * session's events go out one at a time in `seq` order, so a retry can never reorder or gap the
 * stream; sessions do not wait for each other. `emit` never throws into the loop.
 */
export class EventSink {
  private readonly queues = new Map<string, SessionQueue>();
  private stopped = false;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  constructor(private readonly options: EventSinkOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
  }

  emit<T extends AgentEventType>(scope: EventScope, holder: SequenceHolder, type: T, payload: AgentEventPayload<T>): Promise<void> {
    holder.last_seq += 1;
    const built = this.build(scope, holder.last_seq, type, payload);
    if (!built.ok) {
      // A bug in the orchestrator, not the person's fault: keep the seq contiguous with a state event.
      this.options.logger.error({ type, issues: built.issues }, "event failed its schema");
      this.enqueue(holder, fallbackEvent(built.candidate));
      return Promise.resolve();
    }
    this.enqueue(holder, built.event);
    return Promise.resolve();
  }

  /**
   * At start, before the first request: every event type goes once through what `emit` does to
   * an event (render, envelope, `AgentEventSchema`, the bus encoding), nothing published and no
   * seq taken, so that no run's turn pays the first use of a schema (zod compiles it then) or of
   * the code around it. Returns the types whose sample failed its schema (a bug; logged).
   */
  warm(samples: Partial<{ [T in AgentEventType]: AgentEventPayload<T> }>): AgentEventType[] {
    const scope: EventScope = { session: "warm-up", run: "warm-up", user: "warm-up", depth: 0 };
    const failed: AgentEventType[] = [];
    let seq = 0;
    for (const [type, payload] of Object.entries(samples) as Array<[AgentEventType, AgentEventPayload<AgentEventType>]>) {
      seq += 1;
      const built = this.build(scope, seq, type, payload);
      if (built.ok) encodeJson(built.event);
      else failed.push(type);
    }
    // The discriminated union's lookup for a type it does not know (the fallback path).
    AgentEventSchema.safeParse({ type: "warm-up.unknown" });
    if (failed.length > 0) this.options.logger.error({ types: failed }, "warm-up samples failed their schema");
    return failed;
  }

  private build<T extends AgentEventType>(
    scope: EventScope,
    seq: number,
    type: T,
    payload: AgentEventPayload<T>,
  ): { ok: true; event: Record<string, unknown> } | { ok: false; candidate: Record<string, unknown>; issues: unknown[] } {
    const candidate = {
      session: scope.session,
      run: scope.run,
      seq,
      ts: this.options.now().toISOString(),
      user: scope.user,
      depth: scope.depth,
      ...experiment,
      scheduler: scope.scheduler ?? experiment.scheduler,
      context_policy: scope.context_policy ?? experiment.context_policy,
      type,
      payload: renderEventPayload(type, payload),
    };
    const parsed = AgentEventSchema.safeParse(candidate);
    if (!parsed.success) return { ok: false, candidate, issues: parsed.error.issues.slice(0, 5) };
    return { ok: true, event: parsed.data as unknown as Record<string, unknown> };
  }

  /**
   * After a takeover or restart: republishes the record's outbox entries the stream does not have
   * (`seq` above the stream's newest of the session), in order, and forgets the others.
   */
  replay(session: string, holder: SequenceHolder, streamLastSeq: number): number {
    const missing = holder.outbox.filter((entry) => entry.seq > streamLastSeq).sort((a, b) => a.seq - b.seq);
    holder.outbox.splice(0, holder.outbox.length, ...missing);
    const queue = this.queueOf(session);
    for (const entry of missing) queue.pending.push({ entry, holder });
    this.wake(session, queue);
    if (missing.length > 0) this.options.logger.info({ session, events: missing.length, after: streamLastSeq }, "republishing the outbox");
    return missing.length;
  }

  /** Resolves when every event of the session (all sessions when absent) emitted so far is stored. */
  async flush(session?: string): Promise<void> {
    for (;;) {
      const workers = session === undefined ? [...this.queues.values()].map((queue) => queue.worker) : [this.queues.get(session)?.worker];
      const running = workers.filter((worker): worker is Promise<void> => worker !== undefined);
      if (running.length === 0 || this.stopped) return;
      await Promise.all(running);
    }
  }

  /** Events of the session not yet stored (0 when all were acknowledged). */
  pendingCount(session: string): number {
    return this.queues.get(session)?.pending.length ?? 0;
  }

  /** Another instance took the session over: its events are its own now. */
  discard(session: string): void {
    const queue = this.queues.get(session);
    if (queue) queue.pending.length = 0;
  }

  /** At shutdown: stop retrying; what is not stored stays in the records' outboxes for the next start. */
  stop(): void {
    this.stopped = true;
  }

  private enqueue(holder: SequenceHolder, event: Record<string, unknown>): void {
    const session = String(event["session"]);
    const entry: OutboxEntry = { seq: Number(event["seq"]), subject: eventSubject(session, String(event["type"])), event };
    holder.outbox.push(entry);
    const queue = this.queueOf(session);
    queue.pending.push({ entry, holder });
    this.wake(session, queue);
  }

  private queueOf(session: string): SessionQueue {
    let queue = this.queues.get(session);
    if (!queue) {
      queue = { pending: [] };
      this.queues.set(session, queue);
    }
    return queue;
  }

  private wake(session: string, queue: SessionQueue): void {
    if (queue.worker || queue.pending.length === 0) return;
    queue.worker = this.drain(session, queue).finally(() => {
      queue.worker = undefined;
      if (queue.pending.length === 0) this.queues.delete(session);
      else if (!this.stopped) this.wake(session, queue);
    });
  }

  private async drain(session: string, queue: SessionQueue): Promise<void> {
    while (queue.pending.length > 0 && !this.stopped) {
      const head = queue.pending[0];
      if (!(await this.publishUntilStored(session, head))) return;
      if (queue.pending[0] === head) queue.pending.shift();
      const index = head.holder.outbox.indexOf(head.entry);
      if (index >= 0) head.holder.outbox.splice(index, 1);
    }
  }

  /** True once stored; false when the sink stopped first (the entry stays in the outbox). */
  private async publishUntilStored(session: string, pending: Pending): Promise<boolean> {
    const { entry } = pending;
    const messageId = messageIdOf(session, entry.seq);
    let data = encodeJson(entry.event);
    for (let attempt = 1; !this.stopped; attempt += 1) {
      try {
        await this.options.publish(entry.subject, data, messageId);
        if (attempt > 1) this.options.logger.info({ session, seq: entry.seq, attempts: attempt }, "event stored after retries");
        return true;
      } catch (error) {
        if (isPermanentPublishError(error)) {
          // Retrying cannot help (too large for the bus): store a small stand-in with the same seq.
          this.options.logger.error({ err: error, subject: entry.subject, seq: entry.seq }, "event refused by the bus; a run.state stands in for it");
          entry.event = fallbackEvent(entry.event);
          entry.subject = eventSubject(session, "run.state");
          data = encodeJson(entry.event);
          continue;
        }
        const level = attempt === 1 || attempt % 20 === 0 ? "warn" : "debug";
        this.options.logger[level]({ err: error, subject: entry.subject, seq: entry.seq, attempt }, "event not stored yet; retrying");
        await this.sleep(publishRetryDelay(attempt, this.random));
      }
    }
    return false;
  }
}

function fallbackEvent(event: Record<string, unknown>): Record<string, unknown> {
  return { ...event, type: "run.state", payload: { state: "running" } };
}
