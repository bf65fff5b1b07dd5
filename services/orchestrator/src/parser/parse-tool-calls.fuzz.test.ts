import { describe, expect, it } from "vitest";
import { parseToolCalls } from "./parse-tool-calls.js";
import type { ToolSpecForParser } from "./tool-spec.js";
import { wrapToolResult } from "../context/wrap-tool-result.js";

const tools: ToolSpecForParser[] = [
  { name: "read_file", params: ["path", "offset"], required: ["path"] },
  { name: "write_file", params: ["path", "content"], required: ["path", "content"], aliases: { write_to_file: "write_file", file_path: "path" } },
  { name: "git_status", params: [], required: [] },
  { name: "remember", params: ["text"], required: ["text"] },
];

/** Deterministic pseudo-random numbers (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "<read_file>",
  "</read_file>",
  "<path>",
  "</path>",
  "<write_file>",
  "</write_file>",
  "<content>",
  "</content>",
  "<offset>",
  "</offset>",
  "<git_status/>",
  "<WRITE_TO_FILE>",
  "<file_path>",
  "</file_path>",
  "<unknown_tool>",
  "</unknown_tool>",
  "Array<string>",
  "<<<<<<< SEARCH",
  "=======",
  ">>>>>>> REPLACE",
  "```",
  "`",
  "\n",
  " ",
  "text",
  "a.ts",
  "<",
  ">",
  "</",
  "<div>",
  "<remember>",
  "</remember>",
  "<text>",
  "</text>",
  "<git_status >",
  "</ write_file>",
  "<READ_FILE>",
];

describe("parseToolCalls on arbitrary input", () => {
  it("never throws, and every call's raw text is a slice of the input in order", () => {
    const next = random(42);
    for (let round = 0; round < 2_000; round += 1) {
      const length = Math.floor(next() * 30);
      const text = Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join("");
      const result = parseToolCalls(text, tools);
      let from = 0;
      result.calls.forEach((call, index) => {
        expect(call.index).toBe(index);
        const at = text.indexOf(call.raw, from);
        expect(at).toBeGreaterThanOrEqual(0);
        from = at + call.raw.length;
        for (const required of tools.find((tool) => tool.name === call.name)?.required ?? []) expect(call.arguments).toHaveProperty(required);
      });
    }
  });

  it("handles degenerate repetition (a weak model's loop) without blowing up", () => {
    const loop = "<read_file> ".repeat(20_000) + "<unknown_thing>".repeat(20_000);
    const result = parseToolCalls(loop, tools);
    expect(result.calls).toEqual([]);
    const many = "<read_file><path>a</path></read_file>\n".repeat(5_000);
    expect(parseToolCalls(many, tools).calls).toHaveLength(5_000);
  });
});

describe("injection canary on arbitrary tool output", () => {
  it("wrapped tool output never yields a call or an error, whatever it contains", () => {
    const next = random(7);
    for (let round = 0; round < 2_000; round += 1) {
      const length = Math.floor(next() * 40);
      const output = Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join("");
      const wrapped = wrapToolResult({ call_id: `c${round}`, tool: "run_command", output, is_error: next() < 0.5 });
      expect(parseToolCalls(wrapped, tools)).toMatchObject({ calls: [], errors: [] });
    }
  });
});
