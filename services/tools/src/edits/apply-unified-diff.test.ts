import { describe, expect, it } from "vitest";
import { applyFilePatch } from "./apply-unified-diff.js";
import { parseUnifiedDiff } from "./parse-unified-diff.js";

function apply(before: string | null, diff: string): string {
  const parsed = parseUnifiedDiff(diff, "f.txt");
  if (!parsed.ok) return "EDIT_MALFORMED";
  const outcome = applyFilePatch(before === null ? null : Buffer.from(before), parsed.files[0]);
  return outcome.ok ? outcome.after.toString("utf8") : outcome.code;
}

describe("applyFilePatch", () => {
  it("uses @@ numbers to choose among exact occurrences only", () => {
    expect(apply("a\nb\nq\na\nb\n", "@@ -4,2 +4,2 @@\n a\n-b\n+B\n")).toBe("a\nb\nq\na\nB\n");
    expect(apply("  a\n  b\nq\n  a\n  b\n", "@@ -4,2 +4,2 @@\n a\n-b\n+B\n")).toBe("EDIT_AMBIGUOUS");
  });
  it("refuses a hunk whose context occurs several times when its @@ numbers name none of them", () => {
    // Found by the fuzz bench: the blank line nearest `@@ -40` (the last) was removed, not the first.
    expect(apply("\n\\ back\n\n", "@@ -40,9 +40,9 @@\n-\n")).toBe("EDIT_AMBIGUOUS");
    expect(apply("\n\\ back\n\n", "@@ -1 +0,0 @@\n-\n")).toBe("\\ back\n\n");
  });
  it("refuses a hunk whose old side is not in the file (stale context)", () => {
    expect(apply("a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n Q\n")).toBe("EDIT_NOT_FOUND");
  });
  it("refuses an edit already applied as such", () => {
    expect(apply("a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")).toBe("EDIT_ALREADY_APPLIED");
  });
  it("refuses a context-free insertion: line numbers alone prove nothing", () => {
    expect(apply("a\nb\n", "@@ -1,0 +2,1 @@\n+x\n")).toBe("EDIT_MALFORMED");
  });
  it("names hunks by number in its refusals", () => {
    const parsed = parseUnifiedDiff("@@ -1 +1 @@\n-1\n+one\n@@ -3 +3 @@\n-nope\n+x\n", "f.txt");
    const outcome = parsed.ok ? applyFilePatch(Buffer.from("1\n2\n3\n"), parsed.files[0]) : undefined;
    expect(outcome?.ok === false && outcome.error).toContain("Hunk 2 of 2 for f.txt");
  });
  it("deletes only when the removed lines are the whole file", () => {
    expect(apply("a\nb\n", "--- a/f.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")).toBe("");
    expect(apply("a\nb\nc\n", "--- a/f.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")).toBe("EDIT_NOT_FOUND");
  });
});
