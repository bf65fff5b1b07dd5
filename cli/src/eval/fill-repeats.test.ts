import { describe, expect, it } from "vitest";
import { repeatsToFill } from "./fill-repeats.js";

const attempt = (task: string, repeat: number, arm?: string, model = "m") => ({ task, model, repeat, ...(arm !== undefined ? { arm } : {}) });

describe("repeatsToFill", () => {
  it("runs only what each task, model and arm lacks, numbered after the repeats it has", () => {
    const fill = repeatsToFill([attempt("t1", 0, "a"), attempt("t1", 1, "a"), attempt("t2", 0, "a"), attempt("t1", 0)], 3);
    expect(fill("t1", "m", "a")).toEqual([2]);
    expect(fill("t2", "m", "a")).toEqual([1, 2]);
    // The defaults (no arm) are a cell of their own, and so is an arm or model never run.
    expect(fill("t1", "m", undefined)).toEqual([1, 2]);
    expect(fill("t1", "m", "b")).toEqual([0, 1, 2]);
    expect(fill("t1", "other", "a")).toEqual([0, 1, 2]);
  });

  it("fills the gaps in the numbering first, and counts attempts, not numbers", () => {
    // Two runs that both numbered their repeat 0 hold two attempts: one more reaches three.
    const fill = repeatsToFill([attempt("t", 0, "a"), attempt("t", 0, "a"), attempt("u", 2, "a")], 3);
    expect(fill("t", "m", "a")).toEqual([1]);
    expect(fill("u", "m", "a")).toEqual([0, 1]);
  });

  it("asks for nothing where the target is already met or passed", () => {
    const fill = repeatsToFill([attempt("t", 0, "a"), attempt("t", 1, "a"), attempt("t", 2, "a"), attempt("t", 3, "a")], 3);
    expect(fill("t", "m", "a")).toEqual([]);
  });
});
