import type { EditCase } from "./edit-case.js";
import { args, block, no, sr } from "./edit-corpus-helpers.js";

const invalidUtf8 = Buffer.concat([Buffer.from("ok\n"), Buffer.from([0xff, 0xfe, 0x41, 0x0a]), Buffer.from("target\n"), Buffer.from([0xc3, 0x28, 0x0a])]);
const invalidUtf8After = Buffer.concat([Buffer.from("ok\n"), Buffer.from([0xff, 0xfe, 0x41, 0x0a]), Buffer.from("TARGET\n"), Buffer.from([0xc3, 0x28, 0x0a])]);
const goTabs = "func main() {\n\tif x {\n\t\treturn 1\n\t}\n}\n";
const pyClass = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 3\n";
const goStruct = "type Config struct {\n\tName    string\n\tTimeout int\n\tDebug   bool\n}\n";
const nbsp = "\u00a0";
const cafeNfc = "caf\u00e9";
const cafeNfd = "cafe\u0301";

/** SEARCH/REPLACE cases: the project's original ones re-judged, and one or more per rule. */
export const searchReplaceCases: EditCase[] = [
  // exact
  sr("exact", "exact single line", "a\nb\nc\n", block("b\n", "B\n"), "a\nB\nc\n"),
  sr("exact", "exact multi-line middle", "one\ntwo\nthree\nfour\n", block("two\nthree\n", "2\n3\n"), "one\n2\n3\nfour\n"),
  sr("exact", "whole file pasted into SEARCH", "line1\nline2\nline3\n", block("line1\nline2\nline3\n", "line1\nLINE2\nline3\n"), "line1\nLINE2\nline3\n"),
  sr("exact", "deleting lines with an empty REPLACE", "a\nb\nc\n", block("b\n", ""), "a\nc\n"),
  sr("exact", "JSON value", '{\n  "name": "x",\n  "version": "1.0.0"\n}\n', block('  "version": "1.0.0"\n', '  "version": "1.1.0"\n'), '{\n  "name": "x",\n  "version": "1.1.0"\n}\n'),
  sr("exact", "repeated line disambiguated by its context", "def a():\n    return None\n\ndef b():\n    return None\n", block("def b():\n    return None\n", "def b():\n    return 42\n"), "def a():\n    return None\n\ndef b():\n    return 42\n"),
  sr("exact", "a lazy-looking comment already in the file is fine", "// ... existing code ...\nx\n", block("// ... existing code ...\nx\n", "// ... existing code ...\ny\n"), "// ... existing code ...\ny\n"),
  sr("exact", "invalid UTF-8 outside the edit is preserved", invalidUtf8, block("target\n", "TARGET\n"), invalidUtf8After),
  sr("exact", "read_file line numbers in SEARCH are stripped", "a\nb\nc\n", block("   2\tb\n", "B\n"), "a\nB\nc\n"),
  sr("exact", "read_file line numbers naming the wrong line are not stripped", "1\tx\nfoo\n", block("    5\tfoo\n", "bar\n"), no("EDIT_NOT_FOUND")),
  sr("exact", "read_file line numbers in a second block count the first block's added lines", "a\nb\nc\n", block("a\n", "a\na2\n") + block("    3\tc\n", "C\n"), "a\na2\nb\nC\n"),
  sr("exact", "read_file line numbers that are not consecutive are not stripped", "a\nb\nc\n", block("    1\ta\n    3\tc\n", "A\nC\n"), no("EDIT_NOT_FOUND")),
  sr("exact", "a block inside a code fence with prose", "a\nb\n", "Here is the change:\n```python\n" + block("a\n", "A\n") + "```\nDone.\n", "A\nb\n"),
  sr("exact", "inserting lines keeps the neighbours' bytes", "x = 1  \ny = 2\n", block("x = 1  \ny = 2\n", "x = 1  \nz = 3\ny = 2\n"), "x = 1  \nz = 3\ny = 2\n"),
  sr("exact", "REPLACE equal to SEARCH is refused", "a\nb\n", block("a\n", "a\n"), no("EDIT_MALFORMED")),
  sr("exact", "no match is refused", "alpha\nbeta\ngamma\n", block("delta\n", "epsilon\n"), no("EDIT_NOT_FOUND")),
  sr("exact", "a near miss is refused, not guessed", "const total = price * quantity;\n", block("const total = price * qty;\n", "const total = 0;\n"), no("EDIT_NOT_FOUND")),
  sr("exact", "a misspelt identifier is refused", "function computeTotal(items) {\n  return items.length;\n}\n", block("function computTotal(items) {\n", "function computeTotal(items, tax) {\n"), no("EDIT_NOT_FOUND")),
  // multiple occurrences
  sr("multiple_occurrences", "exact: the first of several whole-line matches wins", "x\ny\nx\n", block("x\n", "X\n"), "X\ny\nx\n"),
  sr("multiple_occurrences", "exact: the first of several multi-line matches wins", "a\nb\nc\na\nb\n", block("a\nb\n", "A\nB\n"), "A\nB\nc\na\nb\n"),
  sr("multiple_occurrences", "trailing-whitespace match in two places is ambiguous", "x \ny\nx  \n", block("x\n", "X\n"), no("EDIT_AMBIGUOUS")),
  sr("multiple_occurrences", "an indent-shift match in two places is ambiguous", "  x = 1\n  y\n  x = 1\n", block("x = 1\n", "x = 2\n"), no("EDIT_AMBIGUOUS")),
  sr("multiple_occurrences", "same text at two indents, searched at a third, is ambiguous", "if a:\n    x = 1\nif b:\n        x = 1\n", block("  x = 1\n", "  x = 2\n"), no("EDIT_AMBIGUOUS")),
  sr("multiple_occurrences", "an exact match beats a shifted one elsewhere", "    x = 1\nx = 1\n", block("x = 1\n", "x = 2\n"), "    x = 1\nx = 2\n"),
  sr("multiple_occurrences", "a whole line beats a partial match elsewhere", "max = 10\nx = 1\n", block("x = 1\n", "x = 2\n"), "max = 10\nx = 2\n"),
  args("multiple_occurrences", "unique partial-line match (search/replace arguments)", "x = foo(1) + 2\n", "foo(1)", "foo(2)", "x = foo(2) + 2\n"),
  args("multiple_occurrences", "partial-line match in two places is ambiguous", "a = foo(1) + 1\nb = foo(1) + 2\n", "foo(1)", "foo(2)", no("EDIT_AMBIGUOUS")),
  args("multiple_occurrences", "a whole-line occurrence wins over partial ones", "bar(foo(1))\nfoo(1)\n", "foo(1)", "foo(2)", "bar(foo(1))\nfoo(2)\n"),
  // line endings
  sr("crlf", "CRLF file, LF search", "a\r\nb\r\nc\r\n", block("b\n", "B\n"), "a\r\nB\r\nc\r\n"),
  sr("crlf", "CRLF file keeps CRLF on added lines", "a\r\nb\r\nc\r\n", block("b\n", "B1\nB2\n"), "a\r\nB1\r\nB2\r\nc\r\n"),
  sr("crlf", "CRLF search against an LF file", "a\nb\nc\n", block("b\n", "B\n").replace(/\n/g, "\r\n"), "a\nB\nc\n"),
  sr("crlf", "mixed line endings: untouched CRLF lines stay", "a\r\nb\nc\r\n", block("b\n", "B\n"), "a\r\nB\nc\r\n"),
  sr("crlf", "CRLF file, two blocks", "one\r\ntwo\r\nthree\r\nfour\r\n", block("one\n", "1\n") + block("four\n", "4\n"), "1\r\ntwo\r\nthree\r\n4\r\n"),
  sr("crlf", "CRLF file without a final newline", "a\r\nb", block("b\n", "B\n"), "a\r\nB"),
  sr("crlf", "CRLF file, deleting a line", "a\r\nb\r\nc\r\n", block("b\n", ""), "a\r\nc\r\n"),
  sr("crlf", "CRLF file, SEARCH with trailing spaces", "a\r\nb\r\n", block("a  \n", "A\n"), "A\r\nb\r\n"),
  // already applied
  sr("already_applied", "a block whose REPLACE is in the file and SEARCH is not", "a\nB\nc\n", block("b\n", "B\n"), no("EDIT_ALREADY_APPLIED")),
  sr("already_applied", "the second block already applied refuses the edit", "a\nb\nC\n", block("a\n", "A\n") + block("c\n", "C\n"), no("EDIT_ALREADY_APPLIED")),
  sr("already_applied", "an insertion already applied", "import a\nimport b\n\nrun()\n", block("import a\n\nrun()\n", "import a\nimport b\n\nrun()\n"), no("EDIT_ALREADY_APPLIED")),
  // BOM
  sr("bom", "a BOM copied into SEARCH is the file's BOM", "\uFEFFa\nb\n", block("\uFEFFa\n", "\uFEFFA\n"), "\uFEFFA\nb\n"),
  sr("bom", "BOM stays", "\uFEFFa\nb\n", block("a\n", "A\n"), "\uFEFFA\nb\n"),
  sr("bom", "BOM and CRLF stay", "\uFEFFa\r\nb\r\n", block("b\n", "B\n"), "\uFEFFa\r\nB\r\n"),
  sr("bom", "BOM file, edit of the first line with two blocks", "\uFEFFfirst\nsecond\nthird\n", block("first\n", "FIRST\n") + block("third\n", "THIRD\n"), "\uFEFFFIRST\nsecond\nTHIRD\n"),
  sr("bom", "BOM file, whole content replaced", "\uFEFFa\nb\n", block("a\nb\n", "c\n"), "\uFEFFc\n"),
  // final newline
  sr("final_newline", "whole file pasted, file has no final newline", "line1\nline2", block("line1\nline2\n", "line1\nline two\n"), "line1\nline two"),
  sr("final_newline", "edit the last line of a file without a final newline", "a\nb", block("b\n", "B\n"), "a\nB"),
  sr("final_newline", "append after a last line without a newline", "a\nb", block("b\n", "b\nc\n"), "a\nb\nc"),
  sr("final_newline", "delete the last line of a file without a final newline", "a\nb", block("b\n", ""), "a"),
  sr("final_newline", "edit the first line of a file without a final newline", "a\nb", block("a\n", "A\n"), "A\nb"),
  sr("final_newline", "one-line file without a newline", "only", block("only\n", "changed\n"), "changed"),
  // unicode
  sr("unicode", "CJK and emoji content, exact", "名前 = '太郎'\nemoji = '🙂'\n", block("emoji = '🙂'\n", "emoji = '🎉'\n"), "名前 = '太郎'\nemoji = '🎉'\n"),
  sr("unicode", "a ZWJ emoji sequence, exact", "icon = '👩‍💻'\nx\n", block("icon = '👩‍💻'\n", "icon = '🧑‍🔬'\n"), "icon = '🧑‍🔬'\nx\n"),
  sr("unicode", "no-break space in the file, plain space in SEARCH: refused", `price = 10${nbsp}€\n`, block("price = 10 €\n", "price = 12 €\n"), no("EDIT_NOT_FOUND")),
  sr("unicode", "plain space in the file, no-break space in SEARCH: refused", "price = 10 €\n", block(`price = 10${nbsp}€\n`, "price = 12 €\n"), no("EDIT_NOT_FOUND")),
  sr("unicode", "no-break space kept when SEARCH repeats it", `a${nbsp}b\nc\n`, block("c\n", "C\n"), `a${nbsp}b\nC\n`),
  sr("unicode", "NFC file, NFD SEARCH: refused", `name = "${cafeNfc}"\n`, block(`name = "${cafeNfd}"\n`, `name = "bar"\n`), no("EDIT_NOT_FOUND")),
  sr("unicode", "NFD file, NFC SEARCH: refused", `name = "${cafeNfd}"\n`, block(`name = "${cafeNfc}"\n`, `name = "bar"\n`), no("EDIT_NOT_FOUND")),
  sr("unicode", "NFD file, NFD SEARCH: exact", `name = "${cafeNfd}"\n`, block(`name = "${cafeNfd}"\n`, `name = "bar"\n`), `name = "bar"\n`),
  sr("unicode", "Cyrillic look-alike letter in SEARCH: refused", "const data = 1;\n", block("const dаta = 1;\n", "const data = 2;\n"), no("EDIT_NOT_FOUND")),
  sr("unicode", "zero-width space in the file, not in SEARCH: refused", "let a\u200b = 1;\n", block("let a = 1;\n", "let a = 2;\n"), no("EDIT_NOT_FOUND")),
  sr("unicode", "ideographic space is not a space", "x\u3000= 1\n", block("x = 1\n", "x = 2\n"), no("EDIT_NOT_FOUND")),
  // tabs and spaces
  sr("tabs_spaces", "tabs exact", goTabs, block("\t\treturn 1\n", "\t\treturn 2\n"), goTabs.replace("return 1", "return 2")),
  sr("tabs_spaces", "spaces SEARCH on a tab-indented file: refused", goTabs, block("    if x {\n        return 1\n    }\n", "    if x {\n        return 2\n    }\n"), no("EDIT_NOT_FOUND")),
  sr("tabs_spaces", "tab SEARCH on a space-indented file: refused", "def f():\n    if x:\n        return 1\n", block("\tif x:\n\t\treturn 1\n", "\tif x:\n\t\treturn 2\n"), no("EDIT_NOT_FOUND")),
  sr("tabs_spaces", "Makefile recipe searched with spaces: refused", "build:\n\tgcc a.c\n\ntest:\n\t./a.out\n", block("build:\n    gcc a.c\n", "build:\n    gcc -O2 a.c\n"), no("EDIT_NOT_FOUND")),
  sr("tabs_spaces", "Makefile recipe searched with its tab", "build:\n\tgcc a.c\n", block("build:\n\tgcc a.c\n", "build:\n\tgcc -O2 a.c\n"), "build:\n\tgcc -O2 a.c\n"),
  sr("tabs_spaces", "a tab-indented line in two places, searched with spaces: refused", "a {\n\tfoo();\n}\nb {\n\tfoo();\n}\n", block("    foo();\n", "    bar();\n"), no("EDIT_NOT_FOUND")),
  sr("tabs_spaces", "inner spacing differs: refused", "foo( a, b )\nbar\n", block("foo(a,b)\n", "foo(a, c)\n"), no("EDIT_NOT_FOUND")),
  sr("tabs_spaces", "mixed tab-and-space indentation, exact", "\t  x = 1\n", block("\t  x = 1\n", "\t  x = 2\n"), "\t  x = 2\n"),
  sr("tabs_spaces", "an inner tab searched as spaces: refused", "a\tb\n", block("a    b\n", "a c\n"), no("EDIT_NOT_FOUND")),
  // gofmt alignment
  sr("gofmt", "aligned struct field, exact", goStruct, block("\tTimeout int\n", "\tTimeout time.Duration\n"), goStruct.replace("\tTimeout int\n", "\tTimeout time.Duration\n")),
  sr("gofmt", "struct field searched without its alignment: refused", goStruct, block("\tName string\n", "\tName []string\n"), no("EDIT_NOT_FOUND")),
  sr("gofmt", "struct searched with one space between columns: refused", goStruct, block("type Config struct {\n\tName string\n\tTimeout int\n\tDebug bool\n}\n", "type Config struct {\n\tName string\n}\n"), no("EDIT_NOT_FOUND")),
  sr("gofmt", "struct searched with spaces for the tab indent: refused", goStruct, block("    Debug   bool\n", "    Debug   int\n"), no("EDIT_NOT_FOUND")),
  sr("gofmt", "aligned fields kept when the whole struct is repeated exactly", goStruct, block(goStruct, goStruct.replace("\tDebug   bool\n", "\tDebug   bool\n\tLevel   int\n")), goStruct.replace("\tDebug   bool\n", "\tDebug   bool\n\tLevel   int\n")),
  sr("gofmt", "aligned struct, shifted by a tab (nested)", "func f() {\n\ttype t struct {\n\t\tA   int\n\t\tBcd int\n\t}\n}\n", block("type t struct {\n\tA   int\n\tBcd int\n}\n", "type t struct {\n\tA   int64\n\tBcd int\n}\n"), "func f() {\n\ttype t struct {\n\t\tA   int64\n\t\tBcd int\n\t}\n}\n"),
  // trailing whitespace
  sr("trailing_whitespace", "trailing whitespace in the file", "a  \nb\t\nc\n", block("a\nb\n", "A\nB\n"), "A\nB\nc\n"),
  sr("trailing_whitespace", "trailing whitespace in SEARCH", "a\nb\nc\n", block("a   \nb \n", "A\nB\n"), "A\nB\nc\n"),
  sr("trailing_whitespace", "unchanged lines keep their trailing whitespace", "x  \ny\n", block("x\ny\n", "x\nY\n"), "x  \nY\n"),
  sr("trailing_whitespace", "leading whitespace is not trailing whitespace: refused", "a\n b\n", block("a\nb  \n", "A\nB\n"), no("EDIT_NOT_FOUND")),
  sr("trailing_whitespace", "trailing tabs in the file, two lines changed", "x = 1\t\ny = 2\t\n", block("x = 1\ny = 2\n", "x = 10\ny = 20\n"), "x = 10\ny = 20\n"),
  sr("trailing_whitespace", "trailing whitespace is not a no-break space: refused", `a${"\u00a0"}\nb\n`, block("a\n", "A\n"), no("EDIT_NOT_FOUND")),
  // stale context
  sr("stale_context", "SEARCH from before the file changed is refused", "def total(items):\n    return sum(i.price for i in items)\n", block("def total(items):\n    return sum(items)\n", "def total(items):\n    return round(sum(items), 2)\n"), no("EDIT_NOT_FOUND")),
  sr("stale_context", "SEARCH whose renamed variable changed since is refused", "let count = 0;\ncount += 1;\n", block("let n = 0;\nn += 1;\n", "let n = 0;\nn += 2;\n"), no("EDIT_NOT_FOUND")),
  // indentation shift
  sr("indent_shift", "uniformly outdented SEARCH (spaces)", "class A {\n  m() {\n    return 1;\n  }\n}\n", block("m() {\n  return 1;\n}\n", "m() {\n  return 2;\n}\n"), "class A {\n  m() {\n    return 2;\n  }\n}\n"),
  sr("indent_shift", "over-indented SEARCH", "def f():\n    return 1\n", block("        def f():\n            return 1\n", "        def f():\n            return 2\n"), "def f():\n    return 2\n"),
  sr("indent_shift", "the replacement keeps its own nesting", pyClass, block("def f(self):\n    return 1\n", "def f(self):\n    if x:\n        return 2\n    return 1\n"), "class A:\n    def f(self):\n        if x:\n            return 2\n        return 1\n\n    def g(self):\n        return 3\n"),
  sr("indent_shift", "outdented YAML block keeps the file's nesting", "jobs:\n  test:\n    steps:\n      - run: npm test\n", block("steps:\n  - run: npm test\n", "steps:\n  - run: npm ci\n  - run: npm test\n"), "jobs:\n  test:\n    steps:\n      - run: npm ci\n      - run: npm test\n"),
  sr("indent_shift", "python decorator block", "class A:\n    @property\n    def v(self):\n        return 1\n", block("@property\ndef v(self):\n    return 1\n", "@property\ndef v(self):\n    return 2\n"), "class A:\n    @property\n    def v(self):\n        return 2\n"),
  sr("indent_shift", "tab prefix added to a tab-indented block", "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", block("if x {\n\ty()\n}\n", "if x {\n\tz()\n}\n"), "func f() {\n\tif x {\n\t\tz()\n\t}\n}\n"),
  sr("indent_shift", "tab prefix in front of space indentation", "\t    a = 1\n\t    b = 2\n", block("    a = 1\n    b = 2\n", "    a = 10\n    b = 2\n"), "\t    a = 10\n\t    b = 2\n"),
  sr("indent_shift", "blank lines inside a shifted block", "def f():\n    a = 1\n\n    b = 2\n", block("a = 1\n\nb = 2\n", "a = 1\n\nb = 3\n"), "def f():\n    a = 1\n\n    b = 3\n"),
  sr("indent_shift", "a shift that differs between lines: refused", "  a\n    b\n", block("a\nb\n", "A\nB\n"), no("EDIT_NOT_FOUND")),
  sr("indent_shift", "SEARCH deeper than the file, a REPLACE line shallower than the shift: refused", "x\n", block("    x\n", "y\n"), no("EDIT_MALFORMED")),
  sr("indent_shift", "a shifted match in two places is ambiguous", "if a:\n    go()\nif b:\n    go()\n", block("go()\n", "stop()\n"), no("EDIT_AMBIGUOUS")),
  // hallucinated lines / dropped context
  sr("hallucinated", "a skipped line in SEARCH is not guessed", "one\ntwo\nthree\nfour\n", block("one\nthree\nfour\n", "1\n3\n4\n"), no("EDIT_NOT_FOUND")),
  sr("hallucinated", "a misremembered context line is refused", "def f():\n    x = 1\n    return x\n", block("def f(self):\n    x = 1\n    return x\n", "def f(self):\n    x = 2\n    return x\n"), no("EDIT_NOT_FOUND")),
  sr("hallucinated", "a hallucinated line in SEARCH is refused (never dropped)", "import os\n\ndef run():\n    os.system('ls')\n", block("import os\nimport sys\n\ndef run():\n    os.system('ls')\n", "import os\nimport sys\n\ndef run():\n    sys.exit(os.system('ls'))\n"), no("EDIT_NOT_FOUND")),
  sr("hallucinated", "a hallucinated comment line is refused", "a = 1\nb = 2\n", block("a = 1\n# set b\nb = 2\n", "a = 1\nb = 3\n"), no("EDIT_NOT_FOUND")),
  sr("hallucinated", "wrong context then two places: refused as not found", "x\nreturn 1\ny\nreturn 1\n", block("WRONG\nreturn 1\n", "WRONG\nreturn 2\n"), no("EDIT_NOT_FOUND")),
  sr("hallucinated", "blank lines around SEARCH that the file does not have: refused", "a\n  b\nc\n", block("\nb\n\n", "\nB\n\n"), no("EDIT_NOT_FOUND")),
  // several blocks
  sr("multi_block", "several blocks in order", "a\nb\nc\nd\n", block("a\n", "A\n") + block("c\n", "C\n"), "A\nb\nC\nd\n"),
  sr("multi_block", "several blocks out of order", "a\nb\nc\nd\n", block("d\n", "D\n") + block("a\n", "A\n"), "A\nb\nc\nD\n"),
  sr("multi_block", "adjacent blocks do not overlap", "a\nb\nc\n", block("a\n", "A\n") + block("b\n", "B\n"), "A\nB\nc\n"),
  sr("multi_block", "a later block may use an earlier block's unchanged context", "a\nb\nc\n", block("a\nb\n", "a\nB\n") + block("a\n", "A\n"), "A\nB\nc\n"),
  sr("multi_block", "one missing block refuses the whole edit", "a\nb\nc\n", block("a\n", "A\n") + block("zzz\n", "Z\n"), no("EDIT_NOT_FOUND")),
  sr("multi_block", "one ambiguous block refuses the whole edit", "a\nx \nx  \n", block("a\n", "A\n") + block("x\n", "X\n"), no("EDIT_AMBIGUOUS")),
  sr("multi_block", "a lazy block refuses the whole edit", "a\nb\n", block("a\n", "A\n") + block("b\n", "// ... rest of code ...\n"), no("EDIT_LAZY_ELISION")),
  // create a file
  sr("create_file", "new file with an empty SEARCH", null, block("", "hello\nworld\n"), "hello\nworld\n", "new.txt"),
  sr("create_file", "an empty SEARCH fills an empty file", "", block("", "x\n"), "x\n"),
  sr("create_file", "an empty SEARCH fills a whitespace-only file", "\n\n", block("", "x\n"), "x\n"),
  sr("create_file", "an empty SEARCH on a file with content is refused", "keep me\n", block("", "x\n"), no("EDIT_FILE_EXISTS")),
  sr("create_file", "SEARCH on a missing file is refused", null, block("a\n", "b\n"), no("FILE_NOT_FOUND")),
  // markers
  sr("markers", "five-character markers", "a\nb\n", block("b\n", "B\n", 5), "a\nB\n"),
  sr("markers", "nine-character markers", "a\nb\n", block("b\n", "B\n", 9), "a\nB\n"),
  sr("markers", "long markers without the words", "a\nb\n", "<<<<<<<<<\nb\n=========\nB\n>>>>>>>>>\n", "a\nB\n"),
  sr("markers", "ORIGINAL/UPDATED words on the markers", "a\nb\n", "<<<<<<< ORIGINAL\nb\n=======\nB\n>>>>>>> UPDATED\n", "a\nB\n"),
  sr("markers", "markers with the file path line and fences around them", "a\nb\n", "src/file.txt\n```\n" + block("a\n", "A\n") + "```\n", "A\nb\n"),
  sr("markers", "ten-character markers are refused", "a\nb\n", block("b\n", "B\n", 10), no("EDIT_MALFORMED")),
  sr("markers", "twelve-character markers are refused", "a\nb\n", block("b\n", "B\n", 12), no("EDIT_MALFORMED")),
  sr("markers", "a ten-character divider is refused", "a\nb\n", "<<<<<<< SEARCH\nb\n==========\nB\n>>>>>>> REPLACE\n", no("EDIT_MALFORMED")),
  sr("markers", "a ten-character closing marker is refused", "a\nb\n", "<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>>>>> REPLACE\n", no("EDIT_MALFORMED")),
  sr("markers", "a ten-character block next to a good one refuses the edit", "a\nb\n", block("a\n", "A\n") + block("b\n", "B\n", 10), no("EDIT_MALFORMED")),
  sr("markers", "four-character markers are not markers", "a\nb\n", block("b\n", "B\n", 4), no("EDIT_MALFORMED")),
  sr("markers", "no blocks at all", "a\n", "just prose, no markers\n", no("EDIT_MALFORMED")),
  sr("markers", "missing REPLACE marker", "a\n", "<<<<<<< SEARCH\na\n=======\nb\n", no("EDIT_MALFORMED")),
  sr("markers", "a block not closed before the next one", "a\nb\n", "<<<<<<< SEARCH\na\n=======\nA\n<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE\n", no("EDIT_MALFORMED")),
  // lazy elision
  sr("lazy_elision", "lazy // comment refused", "function f() {\n  a();\n  b();\n}\n", block("function f() {\n  a();\n  b();\n}\n", "function f() {\n  // ... existing code ...\n  c();\n}\n"), no("EDIT_LAZY_ELISION")),
  sr("lazy_elision", "lazy # comment refused", "def f():\n    a()\n    b()\n", block("def f():\n    a()\n", "def f():\n    # ... rest of the code ...\n"), no("EDIT_LAZY_ELISION")),
  sr("lazy_elision", "lazy /* */ comment refused", "int f() {\n  return 1;\n}\n", block("int f() {\n  return 1;\n}\n", "int f() {\n  /* ... */\n  return 2;\n}\n"), no("EDIT_LAZY_ELISION")),
  sr("lazy_elision", "lazy HTML comment refused", "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n", block("<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n", "<ul>\n  <!-- ... remaining items ... -->\n  <li>c</li>\n</ul>\n"), no("EDIT_LAZY_ELISION")),
  sr("lazy_elision", "'rest of the methods unchanged' refused", "class A {\n  a() {}\n  b() {}\n}\n", block("class A {\n  a() {}\n  b() {}\n}\n", "class A {\n  a() { return 1; }\n  // rest of the methods unchanged\n}\n"), no("EDIT_LAZY_ELISION")),
];
