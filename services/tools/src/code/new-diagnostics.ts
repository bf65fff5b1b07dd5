import type { Diagnostic } from "./diagnostic.js";

const keyOf = (diagnostic: Diagnostic) => `${diagnostic.code}\0${diagnostic.message}\0${diagnostic.text}`;

/**
 * The problems `after` has that `before` did not: matched by code, message and the text of the
 * line (not the line number, which an edit above moves), each old one cancelling one new one.
 */
export function newDiagnostics(before: readonly Diagnostic[], after: readonly Diagnostic[]): Diagnostic[] {
  const old = new Map<string, number>();
  for (const diagnostic of before) old.set(keyOf(diagnostic), (old.get(keyOf(diagnostic)) ?? 0) + 1);
  return after.filter((diagnostic) => {
    const left = old.get(keyOf(diagnostic)) ?? 0;
    if (left === 0) return true;
    old.set(keyOf(diagnostic), left - 1);
    return false;
  });
}
