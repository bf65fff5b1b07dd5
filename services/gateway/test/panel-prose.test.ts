import { describe, expect, it } from "vitest";
import { proseOnly } from "../panel/src/prose-only.js";

describe("the panel's model text", () => {
  it("drops XML tool-call blocks, keeps the prose", () => {
    expect(proseOnly("Let me look.\n<list_dir>\n<path>.</path>\n</list_dir>")).toBe("Let me look.");
    expect(proseOnly("Reading two files.\n<read_file>\n<path>a</path>\n</read_file>\n<read_file>\n<path>b</path>\n</read_file>\nThen I decide.")).toBe("Reading two files.\n\nThen I decide.");
  });
  it("hides a block still streaming, and keeps inline angle brackets in prose", () => {
    expect(proseOnly("Fixing it.\n<replace_in_file>\n<path>src/a.js</pa")).toBe("Fixing it.");
    expect(proseOnly("if a < b and <b> is bold")).toBe("if a < b and <b> is bold");
  });
  it("trims only ASCII whitespace, so an invisible character at an end stays to be shown", () => {
    expect(proseOnly("\uFEFFhello\u2028 \n")).toBe("\uFEFFhello\u2028");
  });
});
