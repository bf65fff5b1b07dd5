import type { EditCase } from "./edit-case.js";
import { block, diff, no, sr, ud } from "./edit-corpus-helpers.js";

const nine = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
const twoFunctions = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
const goFunction = "func f() {\n\tx := 1\n\treturn x\n}\n";

/**
 * Edits models write on purpose or by a common slip, which a strict reading refused although
 * they say one thing: SEARCH/REPLACE blocks that build on each other, diff context lines that lost
 * their leading space, and `@@` headers whose numbers and counts are wrong. Each category has the
 * near misses that must still be refused (and never be applied wrongly).
 */
export const modelSlipCases: EditCase[] = [
  // Blocks applied in order, each against the text the previous ones produced.
  sr("sequential_blocks", "blocks that build on each other", "a\nz\n", block("a\n", "b\n") + block("b\n", "c\n"), "c\nz\n"),
  sr("sequential_blocks", "the same line edited by two blocks", "a\nb\nc\n", block("b\n", "B\n") + block("a\nB\n", "a\nBB\n"), "a\nBB\nc\n"),
  sr("sequential_blocks", "a block spanning an earlier block's deletion", "a\nb\nc\n", block("b\n", "") + block("a\nc\n", "AC\n"), "AC\n"),
  sr("sequential_blocks", "a block matching text an earlier block inserted", "start\nend\n", block("start\n", "start\nx = 1\n") + block("x = 1\n", "x = 2\n"), "start\nx = 2\nend\n"),
  sr("sequential_blocks", "a block whose range contains an earlier change", "1\n2\n3\n4\n", block("2\n", "two\n") + block("1\ntwo\n3\n", "one\ntwo\nthree\n"), "one\ntwo\nthree\n4\n"),
  sr("sequential_blocks", "a created file, then a block that edits it", null, block("", "a\nb\n") + block("a\n", "A\n"), "A\nb\n", "new.txt"),
  sr(
    "sequential_blocks",
    "a new function, then a block that refines it",
    "import os\n\ndef main():\n    pass\n",
    block("def main():\n    pass\n", "def main():\n    run()\n\ndef run():\n    return 1\n") + block("def run():\n    return 1\n", "def run():\n    return os.getpid()\n"),
    "import os\n\ndef main():\n    run()\n\ndef run():\n    return os.getpid()\n",
  ),
  sr(
    "sequential_blocks",
    "a rename, then a block over the renamed line and its body",
    "function total(a) {\n  return a;\n}\nconsole.log(total(1));\n",
    block("function total(a) {\n", "function sum(a) {\n") +
      block("function sum(a) {\n  return a;\n}\n", "function sum(a, b = 0) {\n  return a + b;\n}\n") +
      block("console.log(total(1));\n", "console.log(sum(1));\n"),
    "function sum(a, b = 0) {\n  return a + b;\n}\nconsole.log(sum(1));\n",
  ),
  sr("sequential_blocks", "CRLF file, a block on a line an earlier block added", "a\r\nb\r\n", block("a\n", "a\nx\n") + block("x\n", "y\n"), "a\r\ny\r\nb\r\n"),
  sr("sequential_blocks", "three blocks in a chain", "v = 1\nw\n", block("v = 1\n", "v = 2\n") + block("v = 2\n", "v = 3\n") + block("v = 3\nw\n", "v = 4\nw\n"), "v = 4\nw\n"),
  sr(
    "sequential_blocks",
    "an outdented block on lines an earlier block wrote",
    "class A:\n    def f(self):\n        return 1\n",
    block("        return 1\n", "        x = 1\n        return x\n") + block("x = 1\nreturn x\n", "x = 2\nreturn x\n"),
    "class A:\n    def f(self):\n        x = 2\n        return x\n",
  ),
  sr("sequential_blocks", "a block matching both an earlier block's text and the original is ambiguous", "a\nb\n", block("a\n", "b\n") + block("b\n", "c\n"), no("EDIT_AMBIGUOUS")),
  sr("sequential_blocks", "inserted text that also stands elsewhere is ambiguous", "x = 1\ny\n", block("y\n", "y\nx = 1\n") + block("x = 1\n", "x = 2\n"), no("EDIT_AMBIGUOUS")),
  sr("sequential_blocks", "the first occurrence untouched, the second written: ambiguous", "x\ny\n", block("y\n", "x\n") + block("x\n", "X\n"), no("EDIT_AMBIGUOUS")),
  sr("sequential_blocks", "a block matching twice inside what an earlier block wrote is ambiguous", "a\n", block("a\n", "b\nb\n") + block("b\n", "c\n"), no("EDIT_AMBIGUOUS")),
  sr("sequential_blocks", "a chain then a missing block writes nothing", "a\nz\n", block("a\n", "b\n") + block("b\n", "c\n") + block("nope\n", "x\n"), no("EDIT_NOT_FOUND")),
  sr("sequential_blocks", "a block on text an earlier block replaced is not found", "a\nb\nc\n", block("b\n", "B\n") + block("b\n", "bb\n"), no("EDIT_NOT_FOUND")),
  sr("sequential_blocks", "a chain ending in a lazy block writes nothing", "a\n", block("a\n", "b\n") + block("b\n", "// ... existing code ...\n"), no("EDIT_LAZY_ELISION")),
  // Context lines that lost their leading space: context exactly where they equal the file's line.
  ud("unprefixed_context", "unprefixed context lines around a change", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\na\n-b\n+B\nc\n"), "a\nB\nc\n"),
  ud("unprefixed_context", "tab-indented context that lost its space", goFunction, diff("@@ -1,4 +1,4 @@\nfunc f() {\n-\tx := 1\n+\tx := 2\n\treturn x\n}\n"), goFunction.replace("x := 1", "x := 2")),
  ud("unprefixed_context", "only the first context line lost its space", "import a\nimport b\n", diff("@@ -1,2 +1,3 @@\nimport a\n+import c\n import b\n"), "import a\nimport c\nimport b\n"),
  ud("unprefixed_context", "an unprefixed last line without a final newline", "x\ny\nz\n", diff("@@ -1,3 +1,3 @@\n x\n-y\n+Y\nz"), "x\nY\nz\n"),
  ud(
    "unprefixed_context",
    "unprefixed context in a fence with prose after it",
    "foo()\nbar()\nqux()\n",
    "```diff\n" + diff("@@ -1,3 +1,3 @@\nfoo()\n-bar()\n+baz()\nqux()\n") + "```\nThat swaps bar for baz.\n",
    "foo()\nbaz()\nqux()\n",
  ),
  ud("unprefixed_context", "two hunks, both with unprefixed context", nine, diff("@@ -1,3 +1,3 @@\n1\n-2\n+two\n3\n@@ -7,3 +7,3 @@\n7\n-8\n+eight\n9\n"), "1\ntwo\n3\n4\n5\n6\n7\neight\n9\n"),
  ud("unprefixed_context", "an unprefixed line that agrees with the hint's occurrence", "a\nb\nc\nx\na\nb\nd\n", diff("@@ -5,3 +5,3 @@\n a\n-b\n+B\nd\n"), "a\nb\nc\nx\na\nB\nd\n"),
  ud("unprefixed_context", "unprefixed context, then prose without a fence", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\na\n-b\n+B\nc\nThat renames b.\n"), "a\nB\nc\n"),
  ud("unprefixed_context", "unprefixed context, applied twice: already applied", "a\nB\nc\n", diff("@@ -1,3 +1,3 @@\na\n-b\n+B\nc\n"), no("EDIT_ALREADY_APPLIED")),
  ud("unprefixed_context", "an unprefixed line that is not the file's line is refused", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\nnew line\n c\n"), no("EDIT_MALFORMED")),
  ud("unprefixed_context", "an unprefixed line the counts put in the hunk, not in the file: refused", "a\nb\nc\nd\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\nd\n"), no("EDIT_MALFORMED")),
  ud(
    "unprefixed_context",
    "a space-indented line that lost its prefix could be either: refused",
    "def f():\n    x = 1\n    return x\n",
    diff("@@ -1,3 +1,3 @@\ndef f():\n-    x = 1\n+    x = 2\n    return x\n"),
    no("EDIT_MALFORMED"),
  ),
  ud("unprefixed_context", "a line starting with '-' stays a removed line", "- one\n- two\n- three\n", diff("@@ -1,3 +1,3 @@\n- one\n-- two\n+- TWO\n- three\n"), no("EDIT_NOT_FOUND")),
  ud("unprefixed_context", "context or prose, in two different places: refused", "a\nb\nq\na\nb\nc\n", diff("@@ -1,2 +1,2 @@\n a\n-b\n+B\nc\n"), no("EDIT_AMBIGUOUS")),
  ud(
    "unprefixed_context",
    "an unprefixed line with other spacing than the file's is refused",
    goFunction,
    diff("@@ -1,4 +1,4 @@\nfunc f() {\n-\tx := 1\n+\tx := 2\n\treturn  x\n}\n"),
    no("EDIT_MALFORMED"),
  ),
  ud("unprefixed_context", "an unprefixed line without the file's trailing spaces is refused", "x\nkeep  \ny\n", diff("@@ -1,3 +1,3 @@\n-x\n+X\nkeep\n y\n"), no("EDIT_MALFORMED")),
  // `@@` numbers and counts are hints: the content decides where a hunk is and where it ends.
  ud("hunk_header_hints", "counts too large and a wrong start", "a\nb\nc\n", diff("@@ -10,7 +10,7 @@\n a\n-b\n+B\n c\n"), "a\nB\nc\n"),
  ud("hunk_header_hints", "counts too small and a wrong start", "x\na\nb\nc\nd\n", diff("@@ -10,1 +10,1 @@\n a\n-b\n+B\n c\n d\n"), "x\na\nB\nc\nd\n"),
  ud("hunk_header_hints", "counts too large, a blank line before the closing fence", "a\nb\nc\n", "```diff\n" + diff("@@ -3,9 +3,9 @@\n a\n-b\n+B\n c\n\n") + "```\n", "a\nB\nc\n"),
  ud("hunk_header_hints", "counts too large, prose after a blank line", "a\nb\nc\n", diff("@@ -1,12 +1,12 @@\n a\n-b\n+B\n c\n\nThis fixes it.\n"), "a\nB\nc\n"),
  ud("hunk_header_hints", "two hunks with wrong starts and counts", nine, diff("@@ -20,1 +20,5 @@\n 1\n-2\n+two\n 3\n@@ -2,9 +2,2 @@\n 7\n-8\n+eight\n 9\n"), "1\ntwo\n3\n4\n5\n6\n7\neight\n9\n"),
  ud(
    "hunk_header_hints",
    "counts that end the hunk before its second change",
    twoFunctions,
    diff("@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 10\n\n\n def g():\n-    return 2\n+    return 20\n"),
    "def f():\n    return 10\n\n\ndef g():\n    return 20\n",
  ),
  ud("hunk_header_hints", "a bare @@ without numbers", "a\nb\n", diff("@@ @@\n a\n-b\n+B\n"), "a\nB\n"),
  ud("hunk_header_hints", "zero counts on a hunk with lines", "a\nb\nc\n", diff("@@ -0,0 +0,0 @@\n a\n-b\n+B\n c\n"), "a\nB\nc\n"),
  ud("hunk_header_hints", "wrong counts do not excuse a wrong context line", "a\nb\nc\n", diff("@@ -10,7 +10,7 @@\n a\n-b\n+B\n Q\n"), no("EDIT_NOT_FOUND")),
  ud("hunk_header_hints", "wrong counts and a removed line that changed since", "a\nb2\nc\n", diff("@@ -7,1 +7,1 @@\n a\n-b\n+B\n c\n"), no("EDIT_NOT_FOUND")),
  ud("hunk_header_hints", "wrong counts: a trailing-whitespace match in two places stays ambiguous", "a \nb\nq\na  \nb\n", diff("@@ -50,9 +50,9 @@\n a\n-b\n+B\n"), no("EDIT_AMBIGUOUS")),
  ud("hunk_header_hints", "wrong counts: the start never makes a shifted match apply", "  a\n  b\nq\n  a\n  b\n", diff("@@ -4,9 +4,9 @@\n a\n-b\n+B\n"), no("EDIT_AMBIGUOUS")),
  ud(
    "hunk_header_hints",
    "counts too large and a bullet list after the hunk: refused, never read as removed lines",
    "a\nb\nc\n",
    diff("@@ -1,8 +1,8 @@\n a\n-b\n+B\n c\nChanges:\n- renamed b\n"),
    no("EDIT_MALFORMED"),
  ),
];
