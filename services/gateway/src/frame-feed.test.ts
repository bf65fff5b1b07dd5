import { describe, expect, it, vi } from "vitest";
import { createFrameFeed } from "./frame-feed.js";

function fakeSocket() {
  return {
    readyState: 1,
    bufferedAmount: 0,
    sent: [] as string[],
    closed: undefined as number | undefined,
    send(data: string | Buffer) {
      this.sent.push(String(data));
    },
    close(code?: number) {
      this.closed = code;
      this.readyState = 3;
    },
  };
}

const frame = (seq: number) => ({ type: "event" as const, event: { seq } });

describe("createFrameFeed", () => {
  it("sends in order while the client reads", () => {
    const socket = fakeSocket();
    const feed = createFrameFeed(socket);
    feed.push([frame(1), frame(2)]);
    feed.push([frame(3)]);
    expect(socket.sent.map((s) => JSON.parse(s).event.seq)).toEqual([1, 2, 3]);
  });

  it("holds frames while the socket buffer is full and closes with resume (4008) past the queue limit", () => {
    const socket = fakeSocket();
    const feed = createFrameFeed(socket, { highWaterBytes: 10, maxQueuedFrames: 5 });
    socket.bufferedAmount = 100;
    feed.push([frame(1), frame(2), frame(3)]);
    expect(socket.sent).toEqual([]);
    feed.push([frame(4), frame(5), frame(6)]);
    expect(socket.closed).toBe(4008);
    feed.stop();
  });

  it("closes a client that reads nothing for stalledMs", () => {
    vi.useFakeTimers();
    try {
      const socket = fakeSocket();
      let clock = 0;
      const feed = createFrameFeed(socket, { highWaterBytes: 10, stalledMs: 1000, now: () => clock });
      socket.bufferedAmount = 100;
      feed.push([frame(1)]);
      vi.advanceTimersByTime(20);
      expect(socket.closed).toBeUndefined();
      clock = 5000;
      vi.advanceTimersByTime(20);
      expect(socket.closed).toBe(4008);
    } finally {
      vi.useRealTimers();
    }
  });
});
