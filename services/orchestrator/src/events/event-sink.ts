import type { Logger } from "pino";
import {
  AgentEventSchema,
  eventSubject,
  experiment,
  type AgentEventPayload,
  type AgentEventType,
} from "@aide/contracts";
import { encodeJson } from "@aide/runtime";
import { renderEventPayload } from "./render-event-payload.js";

/** Publishes one encoded event; resolves when the stream acknowledged it. */
export type EventPublisher = (subject: string, data: Uint8Array, messageId: string) => Promise<void>;

export interface EventScope {
  session: string;
  run: string;
  user: string;
  depth: number;
}

/** The per-session sequence counter lives in the session record; the sink only increments it. */
export interface SequenceHolder {
  last_seq: number;
}

export interface EventSinkOptions {
  publish: EventPublisher;
  now: () => Date;
  logger: Logger;
}

/**
 * Builds, validates and publishes run events. Every payload is rendered for screens first
 * (`renderEventPayload`: control and invisible characters as visible tokens). Every event gets the next contiguous per-session
 * `seq`, the envelope (user, depth, experiment ids) and is checked against `AgentEventSchema`.
 * Publishes go out in call order so `seq` order is stream order; `emit` resolves once sent. A publish failure is
 * logged, never thrown into the loop: the run goes on and the record keeps the sequence.
 */
export class EventSink {
  private chain: Promise<void> = Promise.resolve();
  constructor(private readonly options: EventSinkOptions) {}

  emit<T extends AgentEventType>(scope: EventScope, holder: SequenceHolder, type: T, payload: AgentEventPayload<T>): Promise<void> {
    holder.last_seq += 1;
    const candidate = {
      session: scope.session,
      run: scope.run,
      seq: holder.last_seq,
      ts: this.options.now().toISOString(),
      user: scope.user,
      depth: scope.depth,
      ...experiment,
      type,
      payload: renderEventPayload(type, payload),
    };
    const parsed = AgentEventSchema.safeParse(candidate);
    if (!parsed.success) {
      // A bug in the orchestrator, not the person's fault: keep the seq contiguous with a state event.
      this.options.logger.error({ type, issues: parsed.error.issues.slice(0, 5) }, "event failed its schema");
      const fallback = { ...candidate, type: "run.state", payload: { state: "running" } };
      return this.enqueue(fallback, scope.session);
    }
    return this.enqueue(parsed.data, scope.session);
  }

  /** Resolves when every event emitted so far was acknowledged (or failed and was logged). */
  flush(): Promise<void> {
    return this.chain;
  }

  private enqueue(event: { type: string; seq: number }, session: string): Promise<void> {
    const data = encodeJson(event);
    const subject = eventSubject(session, event.type);
    const messageId = `${session}-${event.seq}`;
    // Sent at once (a connection keeps publish order, so stream order is seq order). The loop does
    // not wait for each acknowledgement; `flush` waits for all of them (at the end of a run).
    const ack = this.options.publish(subject, data, messageId).catch((error: unknown) => {
      this.options.logger.warn({ err: error, subject, seq: event.seq }, "event publish failed");
    });
    this.chain = Promise.all([this.chain, ack]).then(() => undefined);
    return Promise.resolve();
  }
}
