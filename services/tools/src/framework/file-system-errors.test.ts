import { describe, expect, it } from "vitest";
import { describeFileSystemError, isFileSystemError } from "./file-system-errors.js";

describe("file-system errors become results the model can act on", () => {
  it("recognizes errno errors and names the path relative to the workspace", () => {
    const error = Object.assign(new Error("EROFS: read-only file system, open '/w/.git/hooks/pre-commit'"), { code: "EROFS", path: "/w/.git/hooks/pre-commit" });
    expect(isFileSystemError(error)).toBe(true);
    expect(describeFileSystemError(error, "/w")).toBe(".git/hooks/pre-commit is on a read-only file system (protected by the sandbox).");
    expect(isFileSystemError(new Error("plain"))).toBe(false);
    expect(isFileSystemError(Object.assign(new Error("x"), { code: "ERR_SOMETHING" }))).toBe(false);
  });
});
