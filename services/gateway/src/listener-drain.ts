import { Server as NetServer, type Socket } from "node:net";
import type { Server } from "node:http";

/**
 * The gateway's listener as it stops. Node's own `server.close()` first destroys every connection
 * with no request in progress — including one just accepted whose request is in its buffer,
 * not yet parsed — and closing the listening socket resets the connections the kernel completed
 * but Node had not accepted yet. Both reached clients as ECONNRESET. Here the listener keeps
 * accepting while connections keep arriving (until none came for `acceptQuietMs`, at most
 * `acceptMaxMs`; the request drain answers what they send 503 with a Retry-After), then stops
 * accepting without touching accepted connections, and gives each connection with no request
 * in progress `quietMs`, counted from its accept or from the start of the stop, to send one
 * before it is closed. A connection answering a request closes after its response (the drain
 * sends `Connection: close` while stopping).
 */
export interface ListenerDrain {
  /** Resolves once the listener is closed and every connection idle past its quiet period is closed. */
  close(): Promise<void>;
  /** Connections currently open. */
  open(): number;
}

export interface ListenerDrainOptions {
  /** How long an idle connection may take to send its request once stopping began (default 500 ms). */
  quietMs?: number;
  /** The listener closes once no connection arrived for this long (default: the smaller of 200 ms and quietMs)… */
  acceptQuietMs?: number;
  /** …or once it accepted this long into the stop (default 2 s). */
  acceptMaxMs?: number;
  now?: () => number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export function createListenerDrain(server: Server, options: ListenerDrainOptions = {}): ListenerDrain {
  const now = options.now ?? (() => performance.now());
  const quietMs = options.quietMs ?? 500;
  const acceptQuietMs = options.acceptQuietMs ?? Math.min(200, quietMs);
  const acceptMaxMs = options.acceptMaxMs ?? 2_000;
  const acceptedAt = new Map<Socket, number>();
  let lastAccept = -Infinity;
  server.on("connection", (socket: Socket) => {
    lastAccept = now();
    acceptedAt.set(socket, lastAccept);
    socket.once("close", () => acceptedAt.delete(socket));
  });

  return {
    async close() {
      const started = now();
      for (;;) {
        const quietUntil = Math.max(started, lastAccept) + acceptQuietMs;
        const wait = Math.min(quietUntil, started + acceptMaxMs) - now();
        if (wait <= 0) break;
        await sleep(wait);
      }
      // net.Server's close: stops accepting at once; unlike http.Server's, it leaves accepted
      // connections alone (its callback waits for all of them, so it is not awaited here).
      if (server.listening) NetServer.prototype.close.call(server);
      // Every connection accepted so far gets its quiet period before an idle one is closed.
      const last = Math.max(started, ...acceptedAt.values());
      await sleep(last + quietMs - now());
      server.closeIdleConnections();
    },
    open: () => acceptedAt.size,
  };
}
