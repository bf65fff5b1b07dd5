import { describe, expect, it } from "vitest";
import { editCorpus } from "./edit-corpus.js";
import { runEditCase } from "./edit-case.js";
import { applySearchReplace } from "./apply-search-replace.js";

describe("edit corpus", () => {
  it("has at least 60 cases", () => {
    expect(editCorpus.length).toBeGreaterThanOrEqual(60);
  });
  for (const testCase of editCorpus) {
    it(testCase.name, () => {
      const run = runEditCase(testCase);
      const expected = "after" in testCase.expect ? "applied_correctly" : "refused_correctly";
      expect({ verdict: run.verdict, after: run.after?.toString("utf8"), error: run.error }).toMatchObject({ verdict: expected });
    });
  }
});

describe("failed-match messages", () => {
  it("show the closest lines of the file with their numbers", () => {
    const before = Buffer.from("function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n");
    const outcome = applySearchReplace(before, [{ search: "function sub(a, b) {\n  return a -- b;\n}\n", replace: "x\n" }], "math.js");
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toContain("was not found in math.js");
    expect(outcome.error).toContain("closest lines in the file (5-7)");
    expect(outcome.error).toContain("    6\t  return a - b;");
  });
  it("name the lines of an ambiguous match", () => {
    const outcome = applySearchReplace(Buffer.from("a {\n\tfoo();\n}\nb {\n\tfoo();\n}\n"), [{ search: "    foo();\n", replace: "bar();\n" }], "x.c");
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toContain("lines 2, 5");
  });
});
