import { describe, expect, it } from "vitest";
import { countChanges, pathOf, splitFiles } from "../panel/src/diff-files.js";

describe("the panel's diff text helpers", () => {
  it("splits a multi-file diff at each file header, git or plain", () => {
    const git = "diff --git a/a.js b/a.js\nindex 1..2 100644\n--- a/a.js\n+++ b/a.js\n@@ -1 +1 @@\n-a\n+b\n";
    const plain = "--- a/b.md\n+++ b/b.md\n@@ -1 +1,2 @@\n x\n+--- not a header\n";
    const files = splitFiles(git + plain);
    expect(files).toHaveLength(2);
    expect(files.map(pathOf)).toEqual(["a.js", "b.md"]);
    expect(countChanges(files[1])).toEqual({ added: 1, removed: 0 });
  });
  it("drops the Index:/==== lines a tool prints before a file instead of showing an empty file", () => {
    const diff = "Index: src/cart.js\n===================================================================\n--- src/cart.js\n+++ src/cart.js\n@@ -1 +1 @@\n-a\n+b\n";
    expect(splitFiles(diff)).toEqual(["--- src/cart.js\n+++ src/cart.js\n@@ -1 +1 @@\n-a\n+b\n"]);
  });
  it("keeps a text without a header as one part, and a deleted file's path from its --- line", () => {
    expect(splitFiles("+only added\n")).toEqual(["+only added\n"]);
    expect(pathOf("--- a/gone.txt\n+++ /dev/null\n")).toBe("gone.txt");
  });
});
