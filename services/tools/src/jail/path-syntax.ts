import { aideError, type AideError } from "@aide/contracts";

export function pathInvalid(path: string, detail: string): AideError {
  return aideError("PATH_INVALID", { path: JSON.stringify(path), detail }, { path });
}

/** Refuses what is not a plain path before anything touches the disk. */
export function checkPathSyntax(input: string): void {
  if (input.includes("\0")) throw pathInvalid(input.replace(/\0/g, "\\0"), "it contains a NUL byte");
  if (input.trim() === "") throw pathInvalid(input, "it is empty");
  if (input.startsWith("~")) throw pathInvalid(input, "`~` is not expanded; use a path relative to the workspace root");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input) || /^file:/i.test(input)) throw pathInvalid(input, "URLs are not paths; use a path relative to the workspace root");
  if (input.includes("\\")) throw pathInvalid(input, "backslashes are not path separators here; use `/`");
  if (/^[a-z]:/i.test(input)) throw pathInvalid(input, "drive letters are not paths here; use a path relative to the workspace root");
  if (input.length > 4096) throw pathInvalid(input.slice(0, 64) + "…", "it is longer than 4096 characters");
}
