import pino from "pino";
import { describe, expect, it } from "vitest";
import { DurableWriter } from "./durable-writer.js";
import { LeaseLostError } from "./session-store.js";

describe("DurableWriter: a session write waits for the store instead of failing the run", () => {
  it("retries a failing write; past the bound it reports a pause, and the first write that lands resumes it", async () => {
    let clock = 0;
    let failures = 8;
    let writes = 0;
    const log: string[] = [];
    const writer = new DurableWriter({
      write: async () => {
        writes += 1;
        if (failures-- > 0) throw new Error("503");
      },
      pauseAfterMs: 1_000,
      onPause: (reason) => log.push(`pause ${reason}`),
      onResume: () => log.push("resume"),
      logger: pino({ level: "silent" }),
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    await writer.request();
    expect(writes).toBe(9);
    expect(log).toEqual(["pause store_unavailable", "resume"]);
    expect(writer.isPaused()).toBe(false);
  });

  it("names a full disk as disk_full", async () => {
    let clock = 0;
    let failures = 3;
    const log: string[] = [];
    const writer = new DurableWriter({
      write: async () => {
        if (failures-- > 0) throw new Error("insufficient resources");
      },
      pauseAfterMs: 10,
      onPause: (reason) => log.push(reason),
      onResume: () => undefined,
      logger: pino({ level: "silent" }),
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    await writer.request();
    expect(log).toEqual(["disk_full"]);
  });

  it("coalesces: requests made while a write is in flight share the next write", async () => {
    let writes = 0;
    let release!: () => void;
    const writer = new DurableWriter({
      write: () => {
        writes += 1;
        return writes === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
      pauseAfterMs: 1_000,
      onPause: () => undefined,
      onResume: () => undefined,
      logger: pino({ level: "silent" }),
    });
    const first = writer.request();
    const later = [writer.request(), writer.request(), writer.request()];
    release();
    await Promise.all([first, ...later]);
    expect(writes).toBe(2);
  });

  it("a takeover by another instance rejects, and every later request too", async () => {
    const writer = new DurableWriter({
      write: async () => {
        throw new LeaseLostError("s1", "other");
      },
      pauseAfterMs: 1_000,
      onPause: () => undefined,
      onResume: () => undefined,
      logger: pino({ level: "silent" }),
    });
    await expect(writer.request()).rejects.toBeInstanceOf(LeaseLostError);
    await expect(writer.request()).rejects.toBeInstanceOf(LeaseLostError);
  });
});

describe("DurableWriter: a request made as the previous write completes", () => {
  it("is written too (never left waiting on a loop that just ended)", async () => {
    let writes = 0;
    const writer = new DurableWriter({
      write: async () => {
        writes += 1;
      },
      pauseAfterMs: 1_000,
      onPause: () => undefined,
      onResume: () => undefined,
      logger: pino({ level: "silent" }),
    });
    // The second request is made from the first one's continuation: the loop has just seen no request left.
    await writer.request().then(() => writer.request());
    await writer.request();
    expect(writes).toBe(3);
  });
});
