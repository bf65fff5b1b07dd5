import { describe, expect, it } from "vitest";
import { createProseFilter } from "./prose-filter.js";

function run(chunks: string[]): string {
  const filter = createProseFilter();
  return chunks.map((chunk) => filter.push(chunk)).join("") + filter.flush();
}

describe("createProseFilter", () => {
  it("drops tool-call blocks, whatever the chunking", () => {
    const text = "Let me look.\n<list_dir>\n<path>.</path>\n</list_dir>\nThen more.";
    expect(run([text])).toBe("Let me look.\nThen more.");
    expect(run(text.split(""))).toBe("Let me look.\nThen more.");
    expect(run(["Let me look.\n<li", "st_dir>\n<path>.</pa", "th>\n</list", "_dir>"])).toBe("Let me look.\n");
  });
  it("keeps angle brackets that are prose", () => {
    expect(run(["if a < b then\n", "a <b> is not a block"])).toBe("if a < b then\na <b> is not a block");
    expect(run(["x <y> z"])).toBe("x <y> z");
  });
  it("an unclosed block hides the rest; an unfinished tag at the end is printed", () => {
    expect(run(["ok\n<write_file>\n<content>secret"])).toBe("ok\n");
    expect(run(["ok\n<wri"])).toBe("ok\n<wri");
  });
});
