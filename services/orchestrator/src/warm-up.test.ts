import pino from "pino";
import { describe, expect, it } from "vitest";
import { AgentEventSchema } from "@aide/contracts";
import { EventSink, type SequenceHolder } from "./events/event-sink.js";
import { warmEventSamples } from "./events/warm-event-samples.js";
import { warmUp } from "./warm-up.js";

function sink(published: string[]) {
  return new EventSink({
    publish: async (subject) => {
      published.push(subject);
    },
    now: () => new Date(0),
    logger: pino({ level: "silent" }),
    sleep: async () => undefined,
  });
}

describe("warm-up at start", () => {
  it("has a sample of every event type, and every sample passes its schema once rendered", () => {
    const types = AgentEventSchema.options.map((option) => option.shape.type.value).sort();
    expect(Object.keys(warmEventSamples).sort()).toEqual(types);
    expect(sink([]).warm(warmEventSamples)).toEqual([]);
  });

  it("publishes nothing and takes no seq: a session's first event is still seq 1", async () => {
    const published: string[] = [];
    const events = sink(published);
    const report = warmUp(events, pino({ level: "silent" }));
    expect(report.failed).toEqual([]);
    await events.flush();
    expect(published).toEqual([]);
    const holder: SequenceHolder = { last_seq: 0, outbox: [] };
    await events.emit({ session: "s1", run: "r1", user: "u", depth: 0 }, holder, "run.state", { state: "running" });
    await events.flush();
    expect(published).toEqual(["agent.evt.s1.run.state"]);
    expect(holder.last_seq).toBe(1);
  });

  it("reports a sample that fails its schema instead of hiding it", () => {
    const failed = sink([]).warm({ "run.state": { state: "not-a-state" as "running" }, "mode.changed": { mode: "act" } });
    expect(failed).toEqual(["run.state"]);
  });
});
