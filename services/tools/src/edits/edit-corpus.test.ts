import { describe, expect, it } from "vitest";
import { editCorpus } from "./edit-corpus.js";
import { runEditCase } from "./edit-case.js";

describe("edit corpus", () => {
  it("has at least 150 cases, with unique names", () => {
    expect(editCorpus.length).toBeGreaterThanOrEqual(150);
    expect(new Set(editCorpus.map((c) => c.name)).size).toBe(editCorpus.length);
  });
  for (const testCase of editCorpus) {
    it(`${testCase.category}: ${testCase.name}`, () => {
      const run = runEditCase(testCase);
      const expected = "after" in testCase.expect ? "applied_correctly" : "refused_correctly";
      expect({ verdict: run.verdict, after: run.after?.toString("utf8"), error: run.error }).toMatchObject({ verdict: expected });
    });
  }
});
