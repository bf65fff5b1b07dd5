import type { EditCase } from "./edit-case.js";
import { diff, no, ud } from "./edit-corpus-helpers.js";

const invalidUtf8 = Buffer.concat([Buffer.from("ok\n"), Buffer.from([0xff, 0xfe, 0x41, 0x0a]), Buffer.from("target\n"), Buffer.from([0xc3, 0x28, 0x0a])]);
const invalidUtf8After = Buffer.concat([Buffer.from("ok\n"), Buffer.from([0xff, 0xfe, 0x41, 0x0a]), Buffer.from("TARGET\n"), Buffer.from([0xc3, 0x28, 0x0a])]);
const nine = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
const repeated = "a\nb\nc\nx\ny\nz\na\nb\nc\n";
const goStruct = "type Config struct {\n\tName    string\n\tTimeout int\n}\n";

/** Unified-diff cases: the project's original ones re-judged, and one or more per rule. */
export const unifiedDiffCases: EditCase[] = [
  // exact
  ud("exact", "diff with @@", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "a\nB\nc\n"),
  ud(
    "exact",
    "diff with an @@ header carrying a function name",
    "int f() {\n  return 1;\n}\n",
    diff("@@ -1,3 +1,3 @@ int f()\n int f() {\n-  return 1;\n+  return 2;\n }\n"),
    "int f() {\n  return 2;\n}\n",
  ),
  ud("exact", "diff without @@", "a\nb\nc\n", diff(" a\n-b\n+B\n c\n"), "a\nB\nc\n"),
  ud("exact", "diff with wrong line numbers", "x\ny\na\nb\nc\n", diff("@@ -40,3 +40,3 @@\n a\n-b\n+B\n c\n"), "x\ny\na\nB\nc\n"),
  ud("exact", "diff with two hunks", nine, diff("@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n@@ -7,3 +7,3 @@\n 7\n-8\n+eight\n 9\n"), "1\ntwo\n3\n4\n5\n6\n7\neight\n9\n"),
  ud("exact", "diff hunks out of order", nine, diff("@@ -7,3 +7,3 @@\n 7\n-8\n+eight\n 9\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n"), "1\ntwo\n3\n4\n5\n6\n7\neight\n9\n"),
  ud("exact", "diff without headers uses the path argument", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n", "a\nB\n"),
  ud("exact", "diff preserves invalid UTF-8 elsewhere", invalidUtf8, diff("@@ -3,1 +3,1 @@\n-target\n+TARGET\n"), invalidUtf8After),
  ud("exact", "diff that inserts lines between context", "a\nb\n", diff("@@ -1,2 +1,3 @@\n a\n+x\n b\n"), "a\nx\nb\n"),
  ud("exact", "diff that only removes lines", "a\nb\nc\n", diff("@@ -1,3 +1,2 @@\n a\n-b\n c\n"), "a\nc\n"),
  ud("exact", "diff whose blank context line lost its space", "a\n\nb\n", diff("@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n"), "a\n\nB\n"),
  ud("exact", "a hunk that does not match is refused", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-q\n+Q\n c\n"), no("EDIT_NOT_FOUND")),
  ud("exact", "a hunk that changes nothing is refused", "a\nb\n", diff("@@ -1,2 +1,2 @@\n a\n b\n"), no("EDIT_MALFORMED")),
  ud("exact", "text with no hunks is refused", "a\n", "I would change a to b.\n", no("EDIT_MALFORMED")),
  // multiple occurrences: @@ numbers choose among exact ones
  ud("multiple_occurrences", "the @@ number chooses the second exact occurrence", repeated, diff("@@ -7,3 +7,3 @@\n a\n-b\n+B\n c\n"), "a\nb\nc\nx\ny\nz\na\nB\nc\n"),
  ud("multiple_occurrences", "the @@ number chooses the first exact occurrence", repeated, diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "a\nB\nc\nx\ny\nz\na\nb\nc\n"),
  ud("multiple_occurrences", "without @@ numbers the first exact occurrence wins", repeated, diff(" a\n-b\n+B\n c\n"), "a\nB\nc\nx\ny\nz\na\nb\nc\n"),
  ud("multiple_occurrences", "the @@ number never makes a loose match apply", "  a\n  b\nq\n  a\n  b\n", diff("@@ -4,2 +4,2 @@\n a\n-b\n+B\n"), no("EDIT_AMBIGUOUS")),
  // line endings
  ud("crlf", "diff on a CRLF file", "a\r\nb\r\nc\r\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "a\r\nB\r\nc\r\n"),
  ud("crlf", "CRLF diff text on a CRLF file", "a\r\nb\r\nc\r\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n").replace(/\n/g, "\r\n"), "a\r\nB\r\nc\r\n"),
  ud("crlf", "CRLF diff text on an LF file", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n").replace(/\n/g, "\r\n"), "a\nB\nc\n"),
  ud("crlf", "diff adding lines to a CRLF file", "a\r\nb\r\n", diff("@@ -1,2 +1,4 @@\n a\n+x\n+y\n b\n"), "a\r\nx\r\ny\r\nb\r\n"),
  // BOM
  ud("bom", "diff keeps a BOM", "\uFEFFa\nb\n", diff("@@ -1,2 +1,2 @@\n-a\n+A\n b\n"), "\uFEFFA\nb\n"),
  ud("bom", "diff keeps a BOM and CRLF", "\uFEFFa\r\nb\r\n", diff("@@ -1,2 +1,2 @@\n a\n-b\n+B\n"), "\uFEFFa\r\nB\r\n"),
  // final newline
  ud("final_newline", "diff on the last line of a file without a final newline", "a\nb", diff("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n"), "a\nB"),
  ud("final_newline", "diff that adds the final newline", "a\nb", diff("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"), "a\nb\n"),
  ud("final_newline", "diff that removes the final newline", "a\nb\n", diff("@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"), "a\nb"),
  ud("final_newline", "diff without the marker keeps a missing final newline", "a\nb", diff("@@ -1,2 +1,2 @@\n a\n-b\n+B\n"), "a\nB"),
  // unicode
  ud("unicode", "a diff with a plain space where the file has a no-break space is refused", "x\u00a0= 1\n", diff("@@ -1 +1 @@\n-x = 1\n+x = 2\n"), no("EDIT_NOT_FOUND")),
  ud("unicode", "an NFD diff on an NFC file is refused", "s = 'caf\u00e9'\n", diff("@@ -1 +1 @@\n-s = 'cafe\u0301'\n+s = 'tea'\n"), no("EDIT_NOT_FOUND")),
  ud("unicode", "an emoji line, exact", "a = '🙂'\nb\n", diff("@@ -1,2 +1,2 @@\n-a = '🙂'\n+a = '🚀'\n b\n"), "a = '🚀'\nb\n"),
  // tabs and spaces
  ud("tabs_spaces", "spaces context on a tab-indented file is refused", "func f() {\n\tx := 1\n}\n", diff("@@ -1,3 +1,3 @@\n func f() {\n-    x := 1\n+    x := 2\n }\n"), no("EDIT_NOT_FOUND")),
  ud("tabs_spaces", "a tab-indented line in two places, diffed with spaces, is refused", "a {\n\tfoo();\n}\nb {\n\tfoo();\n}\n", diff("@@ -2 +2 @@\n-    foo();\n+    bar();\n"), no("EDIT_NOT_FOUND")),
  ud("tabs_spaces", "tabs exact in a diff", "func f() {\n\tx := 1\n}\n", diff("@@ -1,3 +1,3 @@\n func f() {\n-\tx := 1\n+\tx := 2\n }\n"), "func f() {\n\tx := 2\n}\n"),
  // gofmt
  ud(
    "gofmt",
    "a diff that loses the struct's alignment is refused",
    goStruct,
    diff("@@ -1,4 +1,4 @@\n type Config struct {\n-\tName string\n+\tName []string\n \tTimeout int\n }\n"),
    no("EDIT_NOT_FOUND"),
  ),
  ud(
    "gofmt",
    "a diff with the struct's alignment",
    goStruct,
    diff("@@ -1,4 +1,4 @@\n type Config struct {\n-\tName    string\n+\tName    []string\n \tTimeout int\n }\n"),
    "type Config struct {\n\tName    []string\n\tTimeout int\n}\n",
  ),
  // trailing whitespace and indentation shift
  ud("trailing_whitespace", "a removed line with the file's trailing tab missing", "a\nb\t\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "a\nB\nc\n"),
  ud("trailing_whitespace", "trailing-whitespace context in two places is ambiguous", "x \ny\nq\nx  \ny\n", diff("@@ -4,2 +4,2 @@\n x\n-y\n+Y\n"), no("EDIT_AMBIGUOUS")),
  ud("crlf", "CRLF file without a final newline, with the marker", "a\r\nb", diff("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n"), "a\r\nB"),
  ud("trailing_whitespace", "diff context without the file's trailing spaces", "a  \nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "a  \nB\nc\n"),
  ud(
    "indent_shift",
    "an outdented hunk",
    "class A {\n  m() {\n    return 1;\n  }\n}\n",
    diff("@@ -2,3 +2,3 @@\n m() {\n-  return 1;\n+  return 2;\n }\n"),
    "class A {\n  m() {\n    return 2;\n  }\n}\n",
  ),
  ud("indent_shift", "a hunk shifted by a tab", "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", diff("@@ -2,3 +2,3 @@\n if x {\n-\ty()\n+\tz()\n }\n"), "func f() {\n\tif x {\n\t\tz()\n\t}\n}\n"),
  // stale context / hallucinated lines
  ud("stale_context", "a diff with a wrong context line is refused", "a\nb\nc\nd\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n Q\n"), no("EDIT_NOT_FOUND")),
  ud("stale_context", "a removed line that changed since is refused", "a\nb2\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), no("EDIT_NOT_FOUND")),
  ud("stale_context", "the second hunk stale refuses the whole diff", nine, diff("@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n@@ -7,3 +7,3 @@\n 7\n-eight\n+EIGHT\n 9\n"), no("EDIT_NOT_FOUND")),
  ud(
    "stale_context",
    "context from another version of the function is refused",
    "def f(a):\n    return a + 1\n",
    diff("@@ -1,2 +1,2 @@\n def f(a, b):\n-    return a + 1\n+    return a + 2\n"),
    no("EDIT_NOT_FOUND"),
  ),
  ud("hallucinated", "a hunk with a hallucinated context line is refused", "import os\nrun()\n", diff("@@ -1,3 +1,3 @@\n import os\n import sys\n-run()\n+sys.exit(run())\n"), no("EDIT_NOT_FOUND")),
  // already applied
  ud("already_applied", "a diff already applied is refused as such", "a\nB\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), no("EDIT_ALREADY_APPLIED")),
  ud("already_applied", "an insertion already applied is refused as such", "a\nx\nb\n", diff("@@ -1,2 +1,3 @@\n a\n+x\n b\n"), no("EDIT_ALREADY_APPLIED")),
  ud(
    "already_applied",
    "the second hunk already applied refuses the diff",
    nine.replace("8", "eight"),
    diff("@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n@@ -7,3 +7,3 @@\n 7\n-8\n+eight\n 9\n"),
    no("EDIT_ALREADY_APPLIED"),
  ),
  // overlap
  ud("overlap", "two hunks on the same lines overlap", "a\nb\nc\n", diff("@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -1,2 +1,2 @@\n-a\n+A\n B\n"), no("EDIT_OVERLAP")),
  ud("overlap", "a hunk spanning an earlier hunk's deletion", "a\nb\nc\n", diff("@@ -1,3 +1,2 @@\n a\n-b\n c\n@@ -1,2 +1,2 @@\n-a\n-c\n+ac\n"), no("EDIT_OVERLAP")),
  ud("overlap", "adjacent hunks do not overlap", "a\nb\nc\nd\n", diff("@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -3,2 +3,2 @@\n-c\n+C\n d\n"), "A\nb\nC\nd\n"),
  // a removed `-- x` and an added `++ y` line inside a hunk are not a file header
  ud("exact", "removed and added lines that look like ---/+++ headers", "a\n-- old\nb\n", diff("@@ -1,3 +1,3 @@\n a\n--- old\n+++ new\n b\n"), "a\n++ new\nb\n"),
  // fences and prose
  ud("fenced_diff", "diff inside a code fence", "a\nb\n", "```diff\n" + diff("@@ -1,2 +1,2 @@\n a\n-b\n+B\n") + "```\n", "a\nB\n"),
  ud(
    "fenced_diff",
    "a fenced diff with prose after it",
    "a\nb\nc\n",
    "Here is the fix:\n\n```diff\n" + diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n") + "```\n\nThis renames b to B. Let me know if you need more.\n",
    "a\nB\nc\n",
  ),
  ud("fenced_diff", "a fenced diff with a bullet list after it", "a\nb\nc\n", "```diff\n" + diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n") + "```\n- renamed b\n- kept a and c\n", "a\nB\nc\n"),
  ud(
    "fenced_diff",
    "a diff --git header with index lines in a fence",
    "a\nb\n",
    "```\ndiff --git a/file.txt b/file.txt\nindex 3b18e51..1c2f4a7 100644\n" + diff("@@ -1,2 +1,2 @@\n a\n-b\n+B\n") + "```\nDone.\n",
    "a\nB\n",
  ),
  ud("fenced_diff", "prose right after the last hunk, no fence", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n") + "That is all.\n", "a\nB\nc\n"),
  ud("fenced_diff", "prose after a blank line, no fence", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n") + "\nThe change is small.\n", "a\nB\nc\n"),
  ud(
    "fenced_diff",
    "prose between two fenced hunks",
    nine,
    "First:\n```diff\n" + diff("@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n") + "```\nThen:\n```diff\n@@ -7,3 +7,3 @@\n 7\n-8\n+eight\n 9\n```\n",
    "1\ntwo\n3\n4\n5\n6\n7\neight\n9\n",
  ),
  ud("fenced_diff", "a hunk line without its prefix is refused, not guessed", "a\nb\nc\n", diff("@@ -1,3 +1,3 @@\n a\n-b\nnew line\n c\n"), no("EDIT_MALFORMED")),
  // create, delete, rename
  ud("create_file", "diff creating a file", null, "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n", "hello\nworld\n", "new.txt"),
  ud("create_file", "diff creating a file without a final newline", null, "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file\n", "hello", "new.txt"),
  ud("create_file", "diff creating a file that exists is refused", "a\n", "--- /dev/null\n+++ b/file.txt\n@@ -0,0 +1 @@\n+b\n", no("EDIT_FILE_EXISTS")),
  ud("create_file", "a context-free insertion by line number only is refused", "a\nb\nc\n", diff("@@ -2,0 +3,1 @@\n+x\n"), no("EDIT_MALFORMED")),
  ud("create_file", "a diff on a missing file is refused", null, diff("@@ -1 +1 @@\n-a\n+b\n"), no("FILE_NOT_FOUND")),
  ud("delete_rename", "diff deleting a file with its whole content", "a\nb\n", "--- a/file.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", ""),
  ud("delete_rename", "diff deleting a file whose content differs is refused", "a\nb\nc\n", "--- a/file.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", no("EDIT_NOT_FOUND")),
  ud("delete_rename", "git deletion without hunks", "a\n", "diff --git a/file.txt b/file.txt\ndeleted file mode 100644\n", ""),
  ud("delete_rename", "a pure rename keeps the content", "a\nb\n", "diff --git a/file.txt b/moved.txt\nsimilarity index 100%\nrename from file.txt\nrename to moved.txt\n", "a\nb\n"),
  ud(
    "delete_rename",
    "a rename with a hunk",
    "a\nb\n",
    "diff --git a/file.txt b/moved.txt\nrename from file.txt\nrename to moved.txt\n--- a/file.txt\n+++ b/moved.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
    "a\nB\n",
  ),
  ud("delete_rename", "a rename by differing ---/+++ paths", "a\nb\n", "--- a/file.txt\n+++ b/other.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n", "A\nb\n"),
  // lazy elision
  ud("lazy_elision", "a diff with a lazy comment is refused", "def f():\n    a()\n", diff("@@ -1,2 +1,3 @@\n def f():\n-    a()\n+    # ... existing code ...\n+    b()\n"), no("EDIT_LAZY_ELISION")),
  ud("lazy_elision", "a created file with a lazy comment is refused", null, "--- /dev/null\n+++ b/new.js\n@@ -0,0 +1,2 @@\n+// ... rest of the file ...\n+x();\n", no("EDIT_LAZY_ELISION"), "new.js"),
];
