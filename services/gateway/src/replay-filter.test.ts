import { describe, expect, it } from "vitest";
import { createReplayFilter, type StoredEvent } from "./replay-filter.js";

const ev = (seq: number, type = "model.delta", approval?: string): StoredEvent => ({ seq, type, payload: approval ? { approval } : {} });

describe("createReplayFilter", () => {
  it("skips what the client has, sends the rest once, then ready at the session's last seq", () => {
    const filter = createReplayFilter({ since: 2, pending: [], lastSeq: 4 });
    const frames = [1, 2, 3, 3, 4, 2, 5].flatMap((seq) => filter.accept(ev(seq)));
    expect(frames.map((f) => (f.type === "event" ? f.event.seq : f.type))).toEqual([3, 4, "ready", 5]);
  });

  it("re-sends a pending approval requested at or before since, before newer events", () => {
    const filter = createReplayFilter({ since: 3, pending: ["ap1"], lastSeq: 4 });
    const frames = [ev(1), ev(2, "approval.requested", "ap1"), ev(3), ev(4)].flatMap((e) => filter.accept(e));
    expect(frames.map((f) => f.type)).toEqual(["approval.pending", "event", "ready"]);
  });

  it("does not re-send an approval decided at or before since, nor one the orchestrator no longer lists", () => {
    const filter = createReplayFilter({ since: 4, pending: ["ap2"], lastSeq: 4 });
    const frames = [ev(1, "approval.requested", "ap1"), ev(2, "approval.requested", "ap2"), ev(3, "approval.decided", "ap2"), ev(4)].flatMap((e) => filter.accept(e));
    expect(frames).toEqual([{ type: "ready", last_seq: 4 }]);
  });

  it("caughtUp flushes held approvals and ready exactly once", () => {
    const filter = createReplayFilter({ since: 9, pending: ["ap1"], lastSeq: 12 });
    filter.accept(ev(2, "approval.requested", "ap1"));
    expect(filter.caughtUp().map((f) => f.type)).toEqual(["approval.pending", "ready"]);
    expect(filter.caughtUp()).toEqual([]);
  });

  it("without the orchestrator's list, re-sends every request the stream has not seen decided", () => {
    const filter = createReplayFilter({ since: 5, pending: "from_stream", lastSeq: Number.POSITIVE_INFINITY });
    const frames = [ev(1, "approval.requested", "ap1"), ev(2, "approval.requested", "ap2"), ev(3, "approval.decided", "ap1"), ev(4), ev(5)].flatMap((e) => filter.accept(e));
    expect(frames).toEqual([]);
    const ready = filter.caughtUp();
    expect(ready.map((f) => (f.type === "approval.pending" ? f.event.payload : f.type))).toEqual([{ approval: "ap2" }, "ready"]);
  });
});
