import { describe, expect, it } from "vitest";
import { parseSearchReplaceBlocks } from "./parse-search-replace.js";

const block = (marks: number) => `${"<".repeat(marks)} SEARCH\na\n${"=".repeat(marks)}\nb\n${">".repeat(marks)} REPLACE\n`;

describe("parseSearchReplaceBlocks: markers are 5 to 9 characters", () => {
  it.each([5, 7, 9])("%i-character markers are read", (marks) => {
    expect(parseSearchReplaceBlocks(block(marks))).toEqual({ ok: true, blocks: [{ search: "a\n", replace: "b\n" }] });
  });
  it.each([4, 10, 12])("%i-character markers are refused", (marks) => {
    expect(parseSearchReplaceBlocks(block(marks)).ok).toBe(false);
  });
  it("a ten-character block beside a good one refuses the whole edit instead of dropping it", () => {
    const parsed = parseSearchReplaceBlocks(block(7) + block(10));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain("5 to 9 characters");
  });
  it("a block left open before the next one is refused", () => {
    expect(parseSearchReplaceBlocks("<<<<<<< SEARCH\na\n=======\nb\n" + block(7)).ok).toBe(false);
  });
});
