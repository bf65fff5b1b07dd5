import { describe, expect, it } from "vitest";
import { ProseDeltaFilter } from "./prose-delta-filter.js";

function stream(chunks: string[]): string {
  const filter = new ProseDeltaFilter(["write_file", "read_file"]);
  return chunks.map((chunk) => filter.push(chunk)).join("");
}

describe("ProseDeltaFilter", () => {
  it("passes prose and stops at the first tool tag, even when the tag is split across deltas", () => {
    expect(stream(["I'll fix it.\n<wri", "te_file>\n<path>a.ts</path>\n<content>SECRET BODY</content>\n</write_file>"])).toBe("I'll fix it.\n");
    expect(stream(["Plan: ", "<", "Write_File>", "body"])).toBe("Plan: ");
  });
  it("lets ordinary comparisons and markup through", () => {
    expect(stream(["if a < b then ", "c > d; <b>bold</b> done"])).toBe("if a < b then c > d; <b>bold</b> done");
  });
  it("never publishes anything of a body", () => {
    expect(stream(["<write_file><path>x</path><content>", "password=hunter2", "</content></write_file>"])).not.toContain("hunter2");
  });
  it("holds a trailing CR and half a surrogate pair for the next delta, so each delta renders cleanly", () => {
    const filter = new ProseDeltaFilter(["write_file"]);
    expect(filter.push("line one\r")).toBe("line one");
    expect(filter.push("\nline two \uD83D")).toBe("\r\nline two ");
    expect(filter.push("\uDC4D ok")).toBe("\uD83D\uDC4D ok");
  });
});
