import { describe, expect, it } from "vitest";
import { CompletionBudget } from "./completion-budget.js";

describe("CompletionBudget", () => {
  it("rejects twice by default, then the run is unverified", () => {
    const budget = new CompletionBudget();
    expect(budget.reject()).toEqual({ outcome: "rejected", rejections: 1, remaining: 1 });
    expect(budget.reject()).toEqual({ outcome: "rejected", rejections: 2, remaining: 0 });
    expect(budget.exhausted).toBe(true);
    expect(budget.reject()).toEqual({ outcome: "unverified", rejections: 2 });
  });

  it("takes a custom allowance, including zero", () => {
    expect(new CompletionBudget(0).reject().outcome).toBe("unverified");
    const budget = new CompletionBudget(1);
    expect(budget.reject().outcome).toBe("rejected");
    expect(budget.reject().outcome).toBe("unverified");
  });
});
