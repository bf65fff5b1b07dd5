import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "./parse-unified-diff.js";

const hunk = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";

describe("parseUnifiedDiff", () => {
  it("ignores fences, prose, diff --git and index lines around the hunks; a closing fence and prose are not added lines", () => {
    const parsed = parseUnifiedDiff("Fix:\n```diff\ndiff --git a/f.txt b/f.txt\nindex 1234567..89abcde 100644\n" + hunk + "```\n\n- renamed b\nThanks!\n");
    expect(parsed).toEqual({
      ok: true,
      files: [
        {
          path: "f.txt",
          operation: "modify",
          hunks: [
            {
              oldStart: 1,
              counts: { old: 3, new: 3 },
              oldNoNewline: false,
              newNoNewline: false,
              lines: [
                { type: "context", text: "a" },
                { type: "remove", text: "b" },
                { type: "add", text: "B" },
                { type: "context", text: "c" },
              ],
            },
          ],
        },
      ],
    });
  });
  it("reads delete, create and rename (rename from/to, or differing paths)", () => {
    const deleted = parseUnifiedDiff("--- a/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n");
    expect(deleted.ok && deleted.files[0]).toMatchObject({ path: "x.txt", operation: "delete" });
    const created = parseUnifiedDiff("--- /dev/null\n+++ b/y.txt\n@@ -0,0 +1 @@\n+y\n");
    expect(created.ok && created.files[0]).toMatchObject({ path: "y.txt", operation: "create" });
    const renamed = parseUnifiedDiff("diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n");
    expect(renamed.ok && renamed.files[0]).toMatchObject({ path: "new.txt", fromPath: "old.txt", operation: "rename", hunks: [] });
    const moved = parseUnifiedDiff("--- a/old.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-a\n+b\n");
    expect(moved.ok && moved.files[0]).toMatchObject({ path: "new.txt", fromPath: "old.txt", operation: "rename" });
  });
  it("keeps a line without a prefix in the hunk, marked, for the file to decide what it is", () => {
    const parsed = parseUnifiedDiff("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\nnew line\n c\n");
    expect(parsed.ok && parsed.files[0].hunks[0].lines).toEqual([
      { type: "context", text: "a" },
      { type: "remove", text: "b" },
      { type: "context", text: "new line", unprefixed: true },
      { type: "context", text: "c" },
    ]);
  });
  it("reads a hunk to the next @@ whatever its counts say, and the text's final newline is no blank line", () => {
    const parsed = parseUnifiedDiff("--- a/f\n+++ b/f\n@@ -9,1 +9,1 @@\n a\n-b\n+B\n c\n d\n@@ -40,9 +40,9 @@\n-x\n+X\n");
    expect(parsed.ok && parsed.files[0].hunks.map((h) => h.lines.length)).toEqual([5, 2]);
  });
  it("reads a space-prefixed fence line as context; an unindented fence still ends the hunk", () => {
    const parsed = parseUnifiedDiff("```diff\n--- a/R.md\n+++ b/R.md\n ```\n-x\n+y\n ```\n```\n@@ -9 +9 @@\n ```\n-a\n+b\n```\n");
    expect(parsed.ok && parsed.files[0].hunks.map((h) => h.lines.map((l) => `${l.type[0]}${l.text}`))).toEqual([
      ["c```", "rx", "ay", "c```"],
      ["c```", "ra", "ab"],
    ]);
  });
  it("keeps @@ numbers as hints and No-newline markers", () => {
    const parsed = parseUnifiedDiff("--- a/f\n+++ b/f\n@@ -7,1 +7,1 @@\n-x\n\\ No newline at end of file\n+y\n");
    expect(parsed.ok && parsed.files[0].hunks[0]).toMatchObject({ oldStart: 7, oldNoNewline: true, newNoNewline: false });
  });
});
