import type { ConsumerMessages, JsMsg, NatsConnection } from "nats";
import type { Logger } from "pino";
import { aideError, eventStreamName, sessionEventFilter } from "@aide/contracts";

export interface FollowStreamOptions {
  connection: NatsConnection;
  session: string;
  logger: Logger;
  /** Called with each stored message in stream order; a message may come twice after a resume (filter on seq). */
  onMessage(message: JsMsg): void;
  /**
   * A pull's lifetime; heartbeats come every half of it and two missed ones (the consumer's
   * server died, or the stream changed leader) make the feed resume. Default 4 s.
   */
  expiresMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface FollowedStream {
  stop(): Promise<void>;
}

/**
 * Follows one session's events in the stream, from the start, for as long as it is not stopped:
 * an ordered consumer that, when it ends, errs or goes silent (missed heartbeats), is replaced by
 * a new one starting right after the last stream sequence delivered. Consumer loss, a server
 * restart or a stream leader change therefore cost a pause, never a gap. Resolves once the first
 * consumer exists; that first one failing is UNAVAILABLE (the caller answers the client).
 */
export async function followStream(options: FollowStreamOptions): Promise<FollowedStream> {
  const { connection, session, logger } = options;
  const expires = options.expiresMs ?? 4_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let lastStreamSeq = 0;
  let stopped = false;
  let current: ConsumerMessages | undefined;

  const open = async (): Promise<ConsumerMessages> => {
    const consumer = await connection.jetstream().consumers.get(eventStreamName, {
      filterSubjects: sessionEventFilter(session),
      ...(lastStreamSeq > 0 ? { opt_start_seq: lastStreamSeq + 1 } : {}),
    });
    return consumer.consume({ max_messages: 1024, expires });
  };

  const drain = async (messages: ConsumerMessages): Promise<void> => {
    current = messages;
    void (async () => {
      for await (const status of await messages.status()) {
        if (status.type === "heartbeats_missed" && Number(status.data) >= 2) {
          logger.info({ session, after: lastStreamSeq }, "session feed silent; resuming from the last delivered event");
          messages.stop();
          return;
        }
      }
    })().catch(() => undefined);
    for await (const message of messages) {
      lastStreamSeq = message.info.streamSequence;
      options.onMessage(message);
    }
  };

  let first: ConsumerMessages;
  try {
    first = await open();
  } catch (error) {
    throw aideError("UNAVAILABLE", { service: "event stream", detail: (error as Error).message }, { retry_after_ms: 1000 });
  }

  const loop = (async () => {
    let messages: ConsumerMessages | undefined = first;
    for (let attempt = 0; !stopped; ) {
      if (messages) {
        try {
          await drain(messages);
          attempt = 0;
        } catch (error) {
          logger.warn({ err: error, session, after: lastStreamSeq }, "session feed ended; resuming");
        }
        messages = undefined;
        if (stopped) return;
      }
      attempt += 1;
      await sleep(Math.min(2_000, 100 * 2 ** Math.min(attempt, 5)));
      if (stopped) return;
      try {
        messages = await open();
        logger.info({ session, after: lastStreamSeq }, "session feed resumed");
      } catch (error) {
        logger.debug({ err: error, session, attempt }, "session feed not back yet");
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      await current?.close().catch(() => undefined);
      await loop.catch(() => undefined);
    },
  };
}
