import type { AgentEvent } from "./api.js";

export interface EventSocketHandlers {
  onEvent(event: AgentEvent): void;
  onPendingApproval(event: AgentEvent): void;
  /** The stream dropped and is being reconnected (`reconnecting`), or is connected again (`live`). */
  onConnection?(state: "live" | "reconnecting"): void;
}

/**
 * Follows a session over `/api/events` and reconnects with `since` = the last seq received, so
 * each event is shown once; pending approvals come again on every reconnect. A dropped stream is
 * said (`onConnection`) until the socket is open again.
 */
export function followEvents(session: string, handlers: EventSocketHandlers): { close(): void } {
  let lastSeq = 0;
  let closed = false;
  let socket: WebSocket | undefined;
  let delay = 200;
  const connect = () => {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events?session=${encodeURIComponent(session)}&since=${lastSeq}`;
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      delay = 200;
      handlers.onConnection?.("live");
    });
    socket.addEventListener("message", (message) => {
      const frame = JSON.parse(String(message.data)) as { type: string; event?: AgentEvent };
      if (frame.type === "event" && frame.event) {
        if (frame.event.seq <= lastSeq) return;
        lastSeq = frame.event.seq;
        handlers.onEvent(frame.event);
      } else if (frame.type === "approval.pending" && frame.event) {
        handlers.onPendingApproval(frame.event);
      }
    });
    socket.addEventListener("close", (event) => {
      if (closed || event.code === 4404) return;
      handlers.onConnection?.("reconnecting");
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    });
  };
  connect();
  return {
    close() {
      closed = true;
      socket?.close();
    },
  };
}

/**
 * One piece of session state shown from several sources, each with the session event seq it is
 * current at (an event, a command's reply, a snapshot's `last_seq`): `accept(seq)` says whether a
 * state at `seq` is at least as new as the one shown, and then records it. A state without a seq
 * (a reply from an older build) is accepted. `reset()` when another session opens.
 */
export function newestBySeq() {
  let shown = -1;
  return {
    accept(seq: number | undefined): boolean {
      if (seq === undefined) return true;
      if (seq < shown) return false;
      shown = seq;
      return true;
    },
    reset() {
      shown = -1;
    },
  };
}
