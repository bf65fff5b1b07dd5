import { AckPolicy, DeliverPolicy, nanos, type Consumer, type JsMsg, type NatsConnection } from "nats";
import type { Logger } from "pino";
import { aideError, eventStreamName, sessionEventFilter } from "@aide/contracts";

export interface FollowStreamOptions {
  connection: NatsConnection;
  session: string;
  logger: Logger;
  /** Called with each stored message in stream order; a message may come twice after a resume (filter on seq). */
  onMessage(message: JsMsg): void;
  /** A pull's lifetime: one that has not ended this long plus 3 s later makes the feed resume. Default 4 s. */
  expiresMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface FollowedStream {
  stop(): Promise<void>;
}

/**
 * Follows one session's events in the stream, from the start, for as long as it is not stopped.
 * Not the library's ordered consumer (whose own recovery can stall for good when the server that
 * held it dies mid-reset): an ephemeral, unacknowledged, in-memory consumer of our own, pulled
 * in batches that each end after `expiresMs`. A batch that errs, skips a delivery, or does not end
 * in time (its server is gone, the stream changed leader) makes the feed drop that consumer and
 * create a new one starting right after the last stream sequence delivered. Consumer loss, a
 * server restart or a leader change therefore cost a pause, never a gap. Resolves once the first
 * consumer exists; that first one failing is UNAVAILABLE (the caller answers the client).
 */
export async function followStream(options: FollowStreamOptions): Promise<FollowedStream> {
  const { connection, session, logger } = options;
  const expires = options.expiresMs ?? 4_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let lastStreamSeq = 0;
  let stopped = false;
  let batch: { stop(): void } | undefined;

  const create = async (): Promise<Consumer> => {
    const jsm = await connection.jetstreamManager();
    const info = await jsm.consumers.add(eventStreamName, {
      filter_subject: sessionEventFilter(session),
      ack_policy: AckPolicy.None,
      ...(lastStreamSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: lastStreamSeq + 1 } : { deliver_policy: DeliverPolicy.All }),
      mem_storage: true,
      num_replicas: 1,
      // A consumer left behind by a dead server or a gateway that died goes by itself.
      inactive_threshold: nanos(Math.max(30_000, expires * 5)),
    });
    return connection.jetstream().consumers.get(eventStreamName, info.name);
  };

  /** One batch; false when the consumer must be replaced. */
  const pull = async (consumer: Consumer, cursor: { delivered: number }): Promise<boolean> => {
    const before = cursor.delivered;
    let late = false;
    let messages: Awaited<ReturnType<Consumer["fetch"]>> | undefined;
    // The deadline covers starting the pull too: on a connection that is reconnecting it can hang.
    const guard = setTimeout(() => {
      late = true;
      messages?.stop();
    }, expires + 3_000);
    messages = await consumer.fetch({ max_messages: 512, expires });
    batch = messages;
    if (late) messages.stop();
    try {
      for await (const message of messages) {
        // A skipped delivery means the consumer lost messages (it was recreated under us): start over.
        if (message.info.deliverySequence !== cursor.delivered + 1) return false;
        cursor.delivered = message.info.deliverySequence;
        lastStreamSeq = message.info.streamSequence;
        options.onMessage(message);
      }
    } finally {
      clearTimeout(guard);
      batch = undefined;
    }
    if (late) {
      logger.info({ session, after: lastStreamSeq }, "session feed silent; resuming from the last delivered event");
      return false;
    }
    if (cursor.delivered > before) return true;
    // An empty pull is a quiet session, or a consumer whose server is gone (the client library
    // ends the pull at its deadline either way): ask the server whether it still exists and has
    // nothing pending for us.
    const info = await consumer.info(false).catch(() => undefined);
    if (!info || info.num_pending > 0) {
      logger.info({ session, after: lastStreamSeq, found: info !== undefined }, "session feed lost its consumer; resuming from the last delivered event");
      return false;
    }
    return true;
  };

  let first: Consumer;
  try {
    first = await create();
  } catch (error) {
    throw aideError("UNAVAILABLE", { service: "event stream", detail: (error as Error).message }, { retry_after_ms: 1000 });
  }

  const loop = (async () => {
    let consumer: Consumer | undefined = first;
    let cursor = { delivered: 0 };
    for (let failures = 0; !stopped; ) {
      try {
        if (!consumer) {
          consumer = await create();
          cursor = { delivered: 0 };
          logger.info({ session, after: lastStreamSeq }, "session feed resumed");
        }
        if (await pull(consumer, cursor)) {
          failures = 0;
          continue;
        }
      } catch (error) {
        logger[failures === 0 ? "warn" : "debug"]({ err: error, session, after: lastStreamSeq }, "session feed interrupted; resuming");
      }
      const dropped = consumer;
      consumer = undefined;
      void dropped?.delete().catch(() => undefined);
      failures += 1;
      if (!stopped) await sleep(Math.min(2_000, 100 * 2 ** Math.min(failures, 5)));
    }
    void consumer?.delete().catch(() => undefined);
  })();

  return {
    async stop() {
      stopped = true;
      batch?.stop();
      await loop.catch(() => undefined);
    },
  };
}
