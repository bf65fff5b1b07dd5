import WebSocket from "ws";
import { WsFrameSchema, type WsFrame } from "@aide/contracts";
import type { GatewayConnection } from "./gateway-client.js";

export interface EventStreamOptions extends GatewayConnection {
  session: string;
  since?: number;
  onFrame(frame: WsFrame): void;
  /** Called when the stream gives up (after `maxReconnects` failed attempts in a row). */
  onGiveUp?(error: Error): void;
  maxReconnects?: number;
  /** Told about each drop before the reconnect (the close code: 4008 = resume after falling behind). */
  onReconnect?(closeCode: number): void;
}

/**
 * Follows a session's events over `/api/events`. When the socket drops, it reconnects with
 * `since` = the last seq it delivered, and it drops any event at or below that seq, so the
 * caller sees each event once and in order.
 */
export function openEventStream(options: EventStreamOptions): { close(): void; lastSeq(): number } {
  let lastSeq = options.since ?? 0;
  let closed = false;
  let failures = 0;
  let socket: WebSocket | undefined;
  const maxReconnects = options.maxReconnects ?? 20;

  const connect = () => {
    const url = `${options.baseUrl.replace(/^http/, "ws")}/api/events?session=${encodeURIComponent(options.session)}&since=${lastSeq}`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${options.token}` } });
    socket = ws;
    ws.on("open", () => (failures = 0));
    ws.on("message", (data) => {
      const parsed = WsFrameSchema.safeParse(JSON.parse(String(data)));
      if (!parsed.success) return;
      const frame = parsed.data;
      if (frame.type === "event") {
        const seq = Number(frame.event.seq);
        if (seq <= lastSeq) return;
        lastSeq = seq;
      }
      options.onFrame(frame);
    });
    ws.on("error", () => undefined);
    ws.on("close", (code) => {
      if (closed) return;
      if (code === 4404) {
        closed = true;
        options.onGiveUp?.(new Error(`no session ${options.session}`));
        return;
      }
      failures += 1;
      if (failures > maxReconnects) {
        closed = true;
        options.onGiveUp?.(new Error("the event stream closed and did not come back"));
        return;
      }
      options.onReconnect?.(code);
      setTimeout(connect, code === 4008 ? 0 : Math.min(2000, 100 * 2 ** failures));
    });
  };
  connect();
  return {
    lastSeq: () => lastSeq,
    close() {
      closed = true;
      socket?.close();
    },
  };
}
