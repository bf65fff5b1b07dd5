import pino from "pino";
import { describe, expect, it } from "vitest";
import { EventSink, type SequenceHolder } from "./event-sink.js";

const scope = { session: "s1", run: "r1", user: "u", depth: 0 };
const decode = (data: Uint8Array) => JSON.parse(new TextDecoder().decode(data));

function sinkWith(publish: (subject: string, data: Uint8Array, id: string) => Promise<void>) {
  return new EventSink({ publish, now: () => new Date(0), logger: pino({ level: "silent" }), sleep: async () => undefined, random: () => 0.5 });
}

describe("EventSink: stored before it counts", () => {
  it("retries a publish that was not acknowledged under the same message id, and later events wait for it (seq order is stream order)", async () => {
    const attempts: Array<{ seq: number; id: string }> = [];
    const stored: number[] = [];
    let failures = 3;
    const sink = sinkWith(async (_subject, data, id) => {
      const { seq } = decode(data);
      attempts.push({ seq, id });
      if (seq === 2 && failures > 0) {
        failures -= 1;
        throw new Error("503");
      }
      stored.push(seq);
    });
    const holder: SequenceHolder = { last_seq: 0, outbox: [] };
    for (let index = 0; index < 4; index += 1) await sink.emit(scope, holder, "run.state", { state: "running" });
    expect(holder.outbox.map((entry) => entry.seq)).toContain(4);
    await sink.flush();
    expect(stored).toEqual([1, 2, 3, 4]);
    expect(attempts.filter((attempt) => attempt.seq === 2)).toEqual(Array(4).fill({ seq: 2, id: "s1-2" }));
    // Nothing was attempted out of order: 3 waited for 2.
    expect(attempts.map((attempt) => attempt.seq)).toEqual([1, 2, 2, 2, 2, 3, 4]);
    expect(holder.outbox).toEqual([]);
  });

  it("replays only the outbox entries the stream does not have, in order", async () => {
    const stored: number[] = [];
    const sink = sinkWith(async (_subject, data) => {
      stored.push(decode(data).seq);
    });
    const holder: SequenceHolder = {
      last_seq: 7,
      outbox: [7, 5, 6].map((seq) => ({ seq, subject: `agent.evt.s1.run.state`, event: { session: "s1", seq, type: "run.state", payload: { state: "running" } } })),
    };
    expect(sink.replay("s1", holder, 5)).toBe(2);
    await sink.flush("s1");
    expect(stored).toEqual([6, 7]);
    expect(holder.outbox).toEqual([]);
  });

  it("an event the bus can never take (over its max payload) is replaced by a run.state with the same seq, so no gap", async () => {
    const stored: Array<{ seq: number; type: string }> = [];
    const sink = sinkWith(async (_subject, data) => {
      const event = decode(data);
      if (event.type !== "run.state") throw new Error("maximum payload exceeded");
      stored.push({ seq: event.seq, type: event.type });
    });
    const holder: SequenceHolder = { last_seq: 0, outbox: [] };
    await sink.emit(scope, holder, "message.received", { text: "big" });
    await sink.flush();
    expect(stored).toEqual([{ seq: 1, type: "run.state" }]);
  });

  it("stopped, it stops retrying and leaves what was not stored in the outbox", async () => {
    const sink = sinkWith(async () => {
      throw new Error("503");
    });
    const holder: SequenceHolder = { last_seq: 0, outbox: [] };
    await sink.emit(scope, holder, "run.state", { state: "running" });
    sink.stop();
    await sink.flush();
    expect(holder.outbox.map((entry) => entry.seq)).toEqual([1]);
  });
});
