import { describe, expect, it } from "vitest";
import { describeNewProblems, withoutDiagnosticsNote } from "./new-problems-view.js";
import { createStyle } from "./terminal-style.js";

const plain = createStyle(false);

describe("describeNewProblems (aide run, under an edit's diff)", () => {
  it("lists the new problems with the checker and the count, one line each", () => {
    const text = describeNewProblems(
      {
        source: "pyright",
        new_problems: 2,
        files: { "app/service.py": 2 },
        problems: [
          { path: "app/service.py", line: 8, column: 12, code: "reportUndefinedVariable", message: '"greting" is not defined' },
          { path: "app/service.py", line: 9, column: 1, code: "reportAttributeAccessIssue", message: 'Cannot access attribute\n  "nme"' },
        ],
      },
      plain,
    );
    expect(text).toBe(
      '    2 new problems (pyright):\n      app/service.py:8:12 reportUndefinedVariable "greting" is not defined\n      app/service.py:9:1 reportAttributeAccessIssue Cannot access attribute "nme"',
    );
  });

  it("shows nothing for an edit that was type-checked and added nothing, or for metadata that is not diagnostics", () => {
    expect(describeNewProblems({ source: "typescript", new_problems: 0, files: { "a.ts": 0 } }, plain)).toBeUndefined();
    expect(describeNewProblems(undefined, plain)).toBeUndefined();
    expect(describeNewProblems({ new_problems: "many" }, plain)).toBeUndefined();
  });

  it("says when no type check ran: syntax only (no Go checker), timed out, still starting; and how many more there are", () => {
    expect(describeNewProblems({ source: "tree-sitter syntax", new_problems: 0, files: {}, type_checked: false, unavailable_reason: "GO_CHECKER_ABSENT" }, plain)).toBe(
      "    syntax only, not type-checked (GO_CHECKER_ABSENT)",
    );
    expect(describeNewProblems({ source: "pyright", new_problems: 0, files: {}, unavailable: true, timed_out: true }, plain)).toBe("    no diagnostics (pyright: timed out)");
    expect(describeNewProblems({ source: "typescript", new_problems: 0, files: {}, pending: true }, plain)).toBe("    diagnostics (typescript) not ready yet: the checker is still starting");
    const many = describeNewProblems({ source: "typescript", new_problems: 12, files: { "a.ts": 12 }, problems: [{ path: "a.ts", line: 1, column: 1, code: "TS1", message: "x" }] }, plain);
    expect(many).toContain("12 new problems (typescript):");
    expect(many).toContain("… 11 more (diagnostics lists them)");
  });

  it("never passes a control character from a path or message through raw, and colours the heading on a terminal", () => {
    const text =
      describeNewProblems({ source: "typescript", new_problems: 1, files: {}, problems: [{ path: "a\u001b[2J.ts", line: 1, column: 1, code: "TS2322", message: "bad\u0007" }] }, createStyle(true)) ??
      "";
    expect(text.replace(/\u001b\[\d+m/g, "")).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text).toContain("\u001b[33m");
  });
});

describe("withoutDiagnosticsNote", () => {
  it("drops the note the model reads from the preview and lowers the line count", () => {
    const event = { output_preview: "Edited src/ids.ts: 1 block(s) applied.\nNew problems this edit introduced (typescript):\n  src/ids.ts:3:14 TS2322 x", output_lines: 3 };
    expect(withoutDiagnosticsNote(event)).toEqual({ output_preview: "Edited src/ids.ts: 1 block(s) applied.", output_lines: 1 });
    const clean = { output_preview: "Edited a.ts: 1 block(s) applied.\nNo new problems (typescript).", output_lines: 2 };
    expect(withoutDiagnosticsNote(clean).output_preview).toBe("Edited a.ts: 1 block(s) applied.");
    const other = { output_preview: "Wrote a.md", output_lines: 1 };
    expect(withoutDiagnosticsNote(other)).toBe(other);
  });
});
