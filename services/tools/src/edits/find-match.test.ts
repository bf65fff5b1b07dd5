import { describe, expect, it } from "vitest";
import { applyShift, findLines } from "./find-match.js";

describe("findLines: the only tiers that may apply", () => {
  it("exact: the first of several occurrences wins, or the one the hint names; a hint naming none chooses none", () => {
    const file = ["a", "b", "x", "a", "b"];
    expect(findLines(file, ["a", "b"])).toEqual({ type: "found", tier: "exact", start: 0, occurrences: [0, 3] });
    expect(findLines(file, ["a", "b"], 3)).toEqual({ type: "found", tier: "exact", start: 3, occurrences: [0, 3] });
    // Found by the fuzz bench: `@@ -40` on a short file chose the last occurrence, not the one the diff changed.
    expect(findLines(file, ["a", "b"], 4)).toEqual({ type: "ambiguous", tier: "exact", lines: [1, 4] });
    expect(findLines(["", "\\ back", ""], [""], 39)).toEqual({ type: "ambiguous", tier: "exact", lines: [1, 3] });
  });
  it("trailing whitespace: applies only when unique", () => {
    expect(findLines(["a  ", "b"], ["a"])).toMatchObject({ type: "found", tier: "trailing_whitespace", start: 0 });
    expect(findLines(["a  ", "b", "a\t"], ["a"])).toMatchObject({ type: "ambiguous", tier: "trailing_whitespace", lines: [1, 3] });
  });
  it("indent shift: a constant prefix of spaces, or of tabs before spaces, on every non-blank line; unique", () => {
    expect(findLines(["  if x:", "", "      y()"], ["if x:", "", "    y()"])).toMatchObject({ type: "found", tier: "indent_shift", shift: { prefix: "  ", direction: "file_deeper" } });
    expect(findLines(["\t    a", "\t    b"], ["    a", "    b"])).toMatchObject({ type: "found", tier: "indent_shift", shift: { prefix: "\t" } });
    expect(findLines(["x"], ["    x"])).toMatchObject({ type: "found", tier: "indent_shift", shift: { prefix: "    ", direction: "search_deeper" } });
    expect(findLines(["  a", "    b"], ["a", "b"])).toEqual({ type: "none" });
    expect(findLines(["  go()", "q", "  go()"], ["go()"])).toMatchObject({ type: "ambiguous", tier: "indent_shift" });
  });
  it("tabs for spaces is not a shift, and nothing looser applies", () => {
    expect(findLines(["\tif x {", "\t\treturn 1"], ["    if x {", "        return 1"])).toEqual({ type: "none" });
    expect(findLines(["foo( a, b )"], ["foo(a,b)"])).toEqual({ type: "none" });
    expect(findLines(["x\u00a0= 1"], ["x = 1"])).toEqual({ type: "none" });
    expect(findLines(["caf\u00e9"], ["cafe\u0301"])).toEqual({ type: "none" });
  });
  it("the @@ hint never makes a loose tier apply", () => {
    expect(findLines(["  a", "q", "  a"], ["a"], 2)).toMatchObject({ type: "ambiguous" });
  });
  it("the replacement is re-indented by the same prefix, or refused when it cannot carry it", () => {
    expect(applyShift(["x", "", "  y"], { prefix: "\t", direction: "file_deeper" })).toEqual(["\tx", "", "\t  y"]);
    expect(applyShift(["    x", "    y"], { prefix: "    ", direction: "search_deeper" })).toEqual(["x", "y"]);
    expect(applyShift(["  x"], { prefix: "    ", direction: "search_deeper" })).toBeUndefined();
  });
});
