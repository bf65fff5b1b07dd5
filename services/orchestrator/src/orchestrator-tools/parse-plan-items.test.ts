import { describe, expect, it } from "vitest";
import { parsePlanItems } from "./parse-plan-items.js";

describe("parsePlanItems (update_plan)", () => {
  it("reads one step per line with its status", () => {
    expect(parsePlanItems("[completed] read the test\n[in_progress] fix add()\n- [ ] run the tests")).toEqual({
      items: [
        { step: "read the test", status: "completed" },
        { step: "fix add()", status: "in_progress" },
        { step: "run the tests", status: "pending" },
      ],
    });
  });
  it("reads a JSON array (native calls or a model that prefers JSON)", () => {
    expect(parsePlanItems('[{"step":"a","status":"pending"}]')).toEqual({ items: [{ step: "a", status: "pending" }] });
    expect(parsePlanItems([{ step: "b", status: "completed" }])).toEqual({ items: [{ step: "b", status: "completed" }] });
  });
  it("refuses more than one step in progress", () => {
    expect(parsePlanItems("[in_progress] a\n[in_progress] b")).toHaveProperty("error");
  });
  it("refuses an unknown status with a message", () => {
    const result = parsePlanItems("[maybe] a");
    expect("error" in result && result.error).toMatch(/Unknown status/);
  });
});
