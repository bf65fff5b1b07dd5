import { describe, expect, it } from "vitest";
import { hostileStrings, rawControlPattern } from "../../../contracts/test/hostile-strings.js";
import { createStyle } from "./terminal-style.js";
import { describeCheckpointDiff, describeCompletedTool, describeToolArgs } from "./tool-output-view.js";

describe("a finished tool call on the terminal", () => {
  const style = createStyle(false);
  it("never passes a control or invisible character of the output or the diff through raw", () => {
    for (const { text: hostile } of hostileStrings) {
      const shown = describeCompletedTool({ tool: "run_command", is_error: false, output_preview: `ok\n${hostile}\nmore`, output_lines: 3 }, style, { verbose: true });
      expect(shown).not.toMatch(rawControlPattern);
      const diff = describeCheckpointDiff({ files: [{ path: `x${hostile}`, status: "modified", binary: false, diff: `--- a/x\n+++ b/x\n+${hostile}\n` }] }, createStyle(true));
      expect(diff.replace(/\u001b\[\d+m/g, "")).not.toMatch(rawControlPattern);
      expect(describeToolArgs({ path: hostile })).not.toMatch(rawControlPattern);
    }
  });
  it("collapses to the first lines with the count of the rest, and shows all with verbose", () => {
    const output_preview = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const collapsed = describeCompletedTool({ tool: "t", is_error: false, output_preview, output_lines: 21 }, style, { verbose: false });
    expect(collapsed.split("\n")).toHaveLength(7);
    expect(collapsed).toContain("… 14 more lines (--verbose)");
    const whole = describeCompletedTool({ tool: "t", is_error: false, output_preview, output_lines: 21 }, style, { verbose: true });
    expect(whole).toContain("line 20");
    expect(whole).not.toContain("more lines");
  });
});
