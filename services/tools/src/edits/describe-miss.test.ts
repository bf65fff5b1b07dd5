import { describe, expect, it } from "vitest";
import { describeMiss } from "./describe-miss.js";
import { visibleDifference } from "./visible-difference.js";

describe("refusal hints", () => {
  it("make the differing characters visible: tab vs spaces, no-break space, NFD accent", () => {
    expect(visibleDifference("    x", "\tx")).toEqual({ wanted: "⟦····⟧x", actual: "⟦\\t⟧x" });
    expect(visibleDifference("a b", "a\u00a0b").actual).toBe("a⟦U+00A0⟧b");
    expect(visibleDifference("cafe\u0301", "caf\u00e9")).toEqual({ wanted: "caf⟦eU+0301⟧", actual: "caf⟦U+00E9⟧" });
  });
  it("say why a whitespace-only difference is not applied and show the closest lines with their numbers", () => {
    const message = describeMiss(["func f() {", "\tx := 1", "}"], ["    x := 1"], "The SEARCH text", "f.go");
    expect(message).toContain("only if whitespace is ignored");
    expect(message).toContain("    2\t\tx := 1");
    expect(message).toContain("SEARCH line 1: ⟦····⟧x := 1");
    expect(message).toContain("file line 2: ⟦\\t⟧x := 1");
  });
  it("name a hallucinated line instead of dropping it", () => {
    const message = describeMiss(["import os", "run()"], ["import os", "import sys", "run()"], "The SEARCH text", "a.py");
    expect(message).toContain("Line 2 of it is not in the file");
    expect(message).toContain("⟦import·sys⟧   (not in the file)");
  });
  it("say when only Unicode folding would match", () => {
    expect(describeMiss(["x\u00a0= 1"], ["x = 1"], "The SEARCH text", "a.txt")).toContain("only if Unicode characters are folded");
  });
});
