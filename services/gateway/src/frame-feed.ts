import { screenSafeJson, wsCloseCodes, type WsFrame } from "@aide/contracts";
import type { HubEvent } from "./session-hub.js";

/** The part of a WebSocket a feed needs (the `ws` package's socket fits). */
export interface FrameSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  /** Buffers are sent as text frames (`binary: false`): every frame is JSON. */
  send(data: string | Buffer, options: { binary: boolean }): void;
  close(code?: number, reason?: string): void;
}

export interface FrameFeedOptions {
  /** Past this many buffered bytes, sending waits for the client to read. */
  highWaterBytes?: number;
  /** A client that reads nothing for this long is closed with `resume`. */
  stalledMs?: number;
  /** A client this many frames behind is closed with `resume` (it reconnects with `since`). */
  maxQueuedFrames?: number;
  now?: () => number;
}

const open = 1;

/**
 * One client's outgoing frames, in order. A slow reader is back-pressured (frames wait here, the
 * hub is never blocked); one that stays stuck is closed with `resume`, and because the client
 * reconnects with the last seq it received, it is never given a gap.
 */
export function createFrameFeed(socket: FrameSocket, options: FrameFeedOptions = {}) {
  const highWater = options.highWaterBytes ?? 1 << 20;
  const stalledMs = options.stalledMs ?? 30_000;
  const maxQueued = options.maxQueuedFrames ?? 50_000;
  const now = options.now ?? Date.now;
  let queue: Array<string | Buffer> = [];
  let head = 0;
  let stalledSince: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;

  const end = (code: number, reason: string) => {
    ended = true;
    queue = [];
    head = 0;
    if (socket.readyState === open) socket.close(code, reason);
  };

  function pump(): void {
    timer = undefined;
    while (!ended && head < queue.length) {
      if (socket.readyState !== open) return;
      if (socket.bufferedAmount > highWater) {
        stalledSince ??= now();
        if (now() - stalledSince > stalledMs) return end(wsCloseCodes.resume, "resume: the client stopped reading");
        timer = setTimeout(pump, 10);
        return;
      }
      stalledSince = undefined;
      socket.send(queue[head], { binary: false });
      head += 1;
    }
    queue = [];
    head = 0;
  }

  return {
    push(frames: WsFrame[], source?: HubEvent): void {
      if (ended || frames.length === 0) return;
      for (const frame of frames) {
        queue.push(source && frame.type === "event" && frame.event === source.event ? source.frame : screenSafeJson(frame));
      }
      if (queue.length - head > maxQueued) return end(wsCloseCodes.resume, "resume: the client fell too far behind");
      if (!timer) pump();
    },
    stop(): void {
      ended = true;
      if (timer) clearTimeout(timer);
    },
  };
}
