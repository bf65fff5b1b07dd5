import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorCatalog, errorCodes, formatErrorMessage, aideError } from "../src/index.js";

const docs = readFileSync(join(import.meta.dirname, "..", "..", "docs", "errors.md"), "utf8");

describe("error catalog", () => {
  it.each(errorCodes)("%s is documented in docs/errors.md", (code) => {
    expect(docs).toContain(`\`${code}\``);
  });
  it("documents no code that does not exist", () => {
    const documented = [...docs.matchAll(/^- `([A-Z_]+)`/gm)].map((m) => m[1]);
    expect(documented.filter((code) => !(code in errorCatalog))).toEqual([]);
  });
  it("fills message templates and keeps unknown placeholders visible", () => {
    expect(formatErrorMessage("SESSION_NOT_FOUND", { session: "s1" })).toBe("No session with id s1");
    expect(formatErrorMessage("PAYLOAD_TOO_LARGE", { size: 5 })).toBe("The message is 5 bytes; the limit is {limit} bytes");
    expect(aideError("ALREADY_RUNNING", { session: "s2" }).toBody()).toEqual({
      code: "ALREADY_RUNNING",
      message: "Session s2 already has a run in progress",
    });
  });
});
