/**
 * One socket write per event-loop turn for a bus connection (`AIDE_BUS_COALESCE_WRITES`).
 *
 * nats.js queues every protocol operation in one outbound buffer and writes it to the socket from a
 * microtask queued by the first operation after a write. Work that publishes from several promise
 * continuations of the same turn (an event, then a KV write, then a reply, each after an await)
 * therefore makes one `write()` syscall per continuation: 18 % of the orchestrator's busy time under
 * `bench:sessions` at 200 sessions was `writeBuffer` (bench/results/sessions-notes.md). Here the
 * write is moved to `setImmediate`, after the turn's microtasks: the operations of the whole turn go
 * out as one write, in the order they were queued.
 *
 * What stays as nats.js has it: the buffer is written at once when it reaches the library's own
 * pending limit (a burst never grows it without bound); nothing is written before the connection is
 * up (the library's own check); `flush()` sends its PING through the same buffer, after everything
 * queued before it, so a PONG still means that everything before it reached the server.
 */
import type { NatsConnection } from "nats";
import { aideError } from "@aide/contracts";

/** The parts of nats.js 2.x's protocol handler this uses (not part of its typed API). */
interface ProtocolInternals {
  flushPending: () => void;
  outbound: { size(): number };
  pendingLimit: number;
}

function protocolOf(connection: NatsConnection): ProtocolInternals | undefined {
  const protocol = (connection as unknown as { protocol?: Partial<ProtocolInternals> }).protocol;
  if (protocol === undefined || typeof protocol.flushPending !== "function" || typeof protocol.pendingLimit !== "number") return undefined;
  if (typeof protocol.outbound?.size !== "function") return undefined;
  return protocol as ProtocolInternals;
}

/**
 * Installs the per-turn write on `connection`. Returns false (and changes nothing) when the
 * connection does not have the shape this relies on, so a nats.js upgrade that changes it falls
 * back to the library's own writes instead of failing.
 */
export function coalesceWrites(connection: NatsConnection): boolean {
  const protocol = protocolOf(connection);
  if (protocol === undefined) return false;
  const write = protocol.flushPending.bind(protocol);
  let scheduled = false;
  const flushScheduled = () => {
    scheduled = false;
    write();
  };
  protocol.flushPending = () => {
    if (protocol.outbound.size() >= protocol.pendingLimit) {
      write();
      return;
    }
    if (scheduled) return;
    scheduled = true;
    setImmediate(flushScheduled);
  };
  return true;
}

/**
 * `AIDE_BUS_COALESCE_WRITES`: `off` (default) or `on`; anything else is refused by name. Off by
 * default: in four alternating quiet runs of bench:sessions at 200 it did not win (p50 ratio 2.19
 * and 2.40 on against 1.98 and 2.32 off; bench/results/sessions-notes.md).
 */
export function coalesceWritesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.AIDE_BUS_COALESCE_WRITES;
  if (value === undefined || value === "" || value === "off") return false;
  if (value === "on") return true;
  throw aideError("CONFIG_INVALID", { detail: `AIDE_BUS_COALESCE_WRITES must be "on" or "off", not ${JSON.stringify(value)}` });
}
