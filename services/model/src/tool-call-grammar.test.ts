import { describe, expect, it } from "vitest";
import type { ChatTool } from "@aide/contracts";
import { buildToolCallGrammar } from "./tool-call-grammar.js";
import { parseTextToolCalls } from "./tool-call-parse.js";

const tools: ChatTool[] = [
  { name: "read_file", description: "", parameters: { type: "object", properties: { path: { type: "string" }, offset: { type: "integer" } }, required: ["path"] } },
  { name: "git_status", description: "", parameters: { type: "object", properties: { mode: { enum: ["short", "long"] } } } },
  { name: "bad name!", description: "", parameters: { type: "object", properties: {} } },
];

describe("buildToolCallGrammar", () => {
  it("builds one rule per tool and parameter, typed from the JSON Schema", () => {
    const grammar = buildToolCallGrammar(tools, { choice: "auto" });
    expect(grammar).toContain('root ::= prose (call (sep call){0,3})?');
    expect(grammar).toContain('tool-read-file ::= "<read_file>" nl param-read-file-path param-read-file-offset? "</read_file>"');
    expect(grammar).toContain('param-read-file-offset ::= "<offset>" ("0" | "-"? [1-9] [0-9]{0,14}) "</offset>" nl');
    expect(grammar).toContain('("short" | "long")');
    expect(grammar).not.toContain("bad name");
  });

  it("requires a call with bounded prose, or forbids calls", () => {
    expect(buildToolCallGrammar(tools, { choice: "required", maxCalls: 1 })).toMatch(/root ::= prose call \(sep call\)\{0,0\}\nprose ::= \[\^<\]\{0,256\}/);
    expect(buildToolCallGrammar(tools, { choice: "none" })).toBe("root ::= [^<]*\n");
  });
});

describe("parseTextToolCalls", () => {
  it("parses prose then calls", () => {
    const parsed = parseTextToolCalls("Let me look.\n<read_file>\n<path>src/a.ts</path>\n<offset>3</offset>\n</read_file>\n<git_status>\n</git_status>", tools);
    expect(parsed.errors).toEqual([]);
    expect(parsed.prose).toBe("Let me look.\n");
    expect(parsed.calls).toEqual([{ name: "read_file", arguments: { path: "src/a.ts", offset: "3" } }, { name: "git_status", arguments: {} }]);
  });

  it("reports unclosed blocks, unknown and missing parameters, and trailing text", () => {
    expect(parseTextToolCalls("<read_file><path>a</path>", tools).errors).toEqual(["<read_file> is not closed"]);
    expect(parseTextToolCalls("<read_file><nope>a</nope></read_file>", tools).errors).toEqual(["<read_file> has no parameter nope", "<read_file> misses path"]);
    expect(parseTextToolCalls("<git_status></git_status> and more", tools).errors[0]).toMatch(/unexpected text/);
  });
});
