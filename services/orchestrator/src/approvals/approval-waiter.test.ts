import { describe, expect, it } from "vitest";
import { ApprovalWaiter } from "./approval-waiter.js";

describe("ApprovalWaiter", () => {
  it("stays unresolved until a decision, and a decision applies exactly once", async () => {
    const waiter = new ApprovalWaiter(() => new Date(0));
    let settled = false;
    const pending = waiter.wait("a1", new Date(600_000).toISOString()).then((outcome) => {
      settled = true;
      return outcome;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(waiter.settle("a1", { decision: "approve" })).toBe(true);
    expect(waiter.settle("a1", { decision: "reject" })).toBe(false);
    expect(await pending).toEqual({ decision: "approve" });
    expect(waiter.size()).toBe(0);
  });
  it("denies by default when the approval has expired", async () => {
    const waiter = new ApprovalWaiter(() => new Date(10_000));
    expect(await waiter.wait("a2", new Date(5_000).toISOString())).toEqual({ decision: "timeout", source: "timeout" });
  });
  it("cancelAll leaves nothing dangling", async () => {
    const waiter = new ApprovalWaiter(() => new Date(0));
    const a = waiter.wait("a", new Date(600_000).toISOString());
    const b = waiter.wait("b", new Date(600_000).toISOString());
    waiter.cancelAll({ decision: "abort" });
    expect((await a).decision).toBe("abort");
    expect((await b).decision).toBe("abort");
    expect(waiter.size()).toBe(0);
  });
});
