import { describe, expect, it } from "vitest";
import { applySearchReplace } from "./apply-search-replace.js";

const buf = (text: string) => Buffer.from(text, "utf8");
const text = (outcome: ReturnType<typeof applySearchReplace>) => (outcome.ok ? outcome.after.toString("utf8") : `${outcome.code}`);

describe("applySearchReplace", () => {
  it("reports which tier each block used", () => {
    const outcome = applySearchReplace(
      buf("a\nb  \n  c\n"),
      [
        { search: "a\n", replace: "A\n" },
        { search: "b\n", replace: "B\n" },
        { search: "c\n", replace: "C\n" },
      ],
      "f",
    );
    expect(outcome).toMatchObject({ ok: true, levels: ["exact", "trailing_whitespace", "indent_shift"] });
    expect(text(outcome)).toBe("A\nB\n  C\n");
  });
  it("applies blocks in order and refuses the whole edit when any block then fails", () => {
    expect(
      text(
        applySearchReplace(
          buf("a\nb\n"),
          [
            { search: "a\n", replace: "A\n" },
            { search: "nope\n", replace: "x\n" },
          ],
          "f",
        ),
      ),
    ).toBe("EDIT_NOT_FOUND");
    const outcome = applySearchReplace(
      buf("a\nb\n"),
      [
        { search: "a\n", replace: "A\n" },
        { search: "nope\n", replace: "x\n" },
      ],
      "f",
    );
    expect(outcome.ok ? "" : outcome.error).toContain("SEARCH block 2 of 2");
  });
  it("a later block may match what an earlier block wrote, each against the text the previous ones produced", () => {
    expect(
      text(
        applySearchReplace(
          buf("a\nz\n"),
          [
            { search: "a\n", replace: "b\n" },
            { search: "b\n", replace: "c\n" },
          ],
          "f",
        ),
      ),
    ).toBe("c\nz\n");
    expect(
      text(
        applySearchReplace(
          buf("a\nb\nc\n"),
          [
            { search: "b\n", replace: "" },
            { search: "a\nc\n", replace: "x\n" },
          ],
          "f",
        ),
      ),
    ).toBe("x\n");
  });
  it("refuses a block that matches an earlier block's text and another place too, and writes nothing of the others", () => {
    const outcome = applySearchReplace(
      buf("a\nb\n"),
      [
        { search: "a\n", replace: "b\n" },
        { search: "b\n", replace: "c\n" },
      ],
      "f",
    );
    expect(text(outcome)).toBe("EDIT_AMBIGUOUS");
    expect(outcome.ok ? "" : outcome.error).toContain("starting at lines 1, 2");
    // Blocks that do not touch what an earlier one wrote keep the first-occurrence rule.
    expect(
      text(
        applySearchReplace(
          buf("x\ny\nx\n"),
          [
            { search: "y\n", replace: "Y\n" },
            { search: "x\n", replace: "X\n" },
          ],
          "f",
        ),
      ),
    ).toBe("X\nY\nx\n");
  });
  it("never drops a context line that is not in the file", () => {
    expect(text(applySearchReplace(buf("def f():\n    x = 1\n"), [{ search: "def f(self):\n    x = 1\n", replace: "def f(self):\n    x = 2\n" }], "f"))).toBe("EDIT_NOT_FOUND");
  });
  it("keeps the file's bytes: CRLF, BOM, and a missing final newline", () => {
    expect(text(applySearchReplace(buf("\uFEFFa\r\nb"), [{ search: "b\n", replace: "B\nC\n" }], "f"))).toBe("\uFEFFa\r\nB\r\nC");
  });
  it("refuses an edit that is already applied, a lazy elision, and an empty SEARCH on a file with content", () => {
    expect(text(applySearchReplace(buf("a\nB\n"), [{ search: "b\n", replace: "B\n" }], "f"))).toBe("EDIT_ALREADY_APPLIED");
    expect(text(applySearchReplace(buf("a\nb\n"), [{ search: "a\nb\n", replace: "// ... existing code ...\nc\n" }], "f"))).toBe("EDIT_LAZY_ELISION");
    expect(text(applySearchReplace(buf("a\n"), [{ search: "", replace: "x\n" }], "f"))).toBe("EDIT_FILE_EXISTS");
    expect(applySearchReplace(null, [{ search: "", replace: "x\n" }], "f")).toMatchObject({ ok: true, created: true, levels: ["create"] });
  });
  it("exact text inside a line applies only for the search/replace arguments and only when unique", () => {
    expect(text(applySearchReplace(buf("x = foo(1)\n"), [{ search: "foo(1)", replace: "foo(2)" }], "f", { partial: true }))).toBe("x = foo(2)\n");
    expect(text(applySearchReplace(buf("x = foo(1)\n"), [{ search: "foo(1)\n", replace: "foo(2)\n" }], "f"))).toBe("EDIT_NOT_FOUND");
    expect(text(applySearchReplace(buf("foo(1) + foo(1)\n"), [{ search: "foo(1)", replace: "foo(2)" }], "f", { partial: true }))).toBe("EDIT_AMBIGUOUS");
  });
  // Found by the fuzz bench (the shrunk inputs).
  it("the arguments form: exact text that occurs once wins over a whole line matched with its indentation shifted", () => {
    expect(text(applySearchReplace(buf("\n  }\n"), [{ search: "}", replace: "" }], "f", { partial: true }))).toBe("\n  \n");
    expect(text(applySearchReplace(buf("  }\n"), [{ search: "}", replace: "};" }], "f", { partial: true }))).toBe("  };\n");
  });
  it("refuses SEARCH or REPLACE holding half of a character, which would corrupt the file", () => {
    expect(text(applySearchReplace(buf("\u{1F642}\n"), [{ search: "\ud83d", replace: "" }], "f", { partial: true }))).toBe("EDIT_MALFORMED");
    expect(text(applySearchReplace(buf("a\n"), [{ search: "a\n", replace: "\ude42\n" }], "f"))).toBe("EDIT_MALFORMED");
  });
});
