import { describe, expect, it } from "vitest";
import { parseNativeToolCalls } from "./native-tool-calls.js";

const ids = (index: number) => `c${index}`;

describe("parseNativeToolCalls", () => {
  it("reads Qwen's <tool_call> JSON, one or several, and keeps the prose", () => {
    const text = 'I will read it first.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "mathutil.py"}}\n</tool_call>\n<tool_call>\n{"name": "list_dir", "arguments": {}}\n</tool_call>';
    expect(parseNativeToolCalls(text, ids)).toEqual({
      text: "I will read it first.",
      calls: [
        { id: "c0", name: "read_file", arguments: { path: "mathutil.py" } },
        { id: "c1", name: "list_dir", arguments: {} },
      ],
    });
  });

  it("reads a call whose tags the detokenizer dropped, arguments given as a JSON string, braces inside strings", () => {
    const text = '\n{"name": "replace_in_file", "arguments": "{\\"path\\": \\"a.js\\", \\"search\\": \\"if (x) {\\", \\"replace\\": \\"if (y) {\\"}"}\n';
    expect(parseNativeToolCalls(text, ids).calls).toEqual([{ id: "c0", name: "replace_in_file", arguments: { path: "a.js", search: "if (x) {", replace: "if (y) {" } }]);
  });

  it("drops the empty fence a fenced call leaves behind", () => {
    const parsed = parseNativeToolCalls('```json\n{"name": "run_command", "arguments": {"command": "node --test"}}\n```', ids);
    expect(parsed).toEqual({ text: "", calls: [{ id: "c0", name: "run_command", arguments: { command: "node --test" } }] });
  });

  it("leaves JSON that is not a call, and broken JSON, as prose", () => {
    const text = 'The config is {"port": 8421}. <tool_call>\n{"name": "read_file", "arguments": {"path": "a"}\n</tool_call>';
    const parsed = parseNativeToolCalls(text, ids);
    expect(parsed.calls).toEqual([]);
    expect(parsed.text).toContain('{"port": 8421}');
    expect(parsed.text).toContain('{"name": "read_file"');
  });
});
