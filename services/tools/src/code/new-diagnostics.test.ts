import { describe, expect, it } from "vitest";
import { newDiagnostics } from "./new-diagnostics.js";
import type { Diagnostic } from "./diagnostic.js";

const problem = (line: number, message: string, text: string): Diagnostic => ({ line, column: 1, code: "TS2322", severity: "error", message, text });

describe("newDiagnostics", () => {
  it("leaves out old problems whose lines moved, keeps the new one", () => {
    const before = [problem(2, "old", "const a: number = 'x';")];
    const after = [problem(5, "old", "const a: number = 'x';"), problem(7, "new", "const b: string = 1;")];
    expect(newDiagnostics(before, after)).toEqual([after[1]]);
  });

  it("counts repeats: a second copy of an old problem is new", () => {
    const before = [problem(1, "same", "x")];
    const after = [problem(1, "same", "x"), problem(2, "same", "x")];
    expect(newDiagnostics(before, after)).toEqual([after[1]]);
  });
});
