import { describe, expect, it } from "vitest";
import type { ChatTool } from "@aide/contracts";
import { buildToolCallGrammar } from "./tool-call-grammar.js";
import { parseTextToolCalls } from "./tool-call-parse.js";

/** MCP tools (`mcp__<server>__<tool>`) go under the same grammar as our own. */
describe("MCP tools in the tool-call grammar", () => {
  const tools: ChatTool[] = [
    { name: "read_file", description: "", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
    { name: "mcp__issue-tracker__get", description: "", parameters: { type: "object", properties: { id: { type: "integer" }, filter: { type: "object" } }, required: ["id"] } },
    { name: "mcp__issue__tracker_get", description: "", parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } },
  ];

  it("gives each tool its own rule even when their names fold to the same rule name", () => {
    const grammar = buildToolCallGrammar(tools, { choice: "auto" });
    const definitions = grammar
      .split("\n")
      .filter((line) => line.includes(" ::= "))
      .map((line) => line.split(" ::= ")[0]);
    expect(new Set(definitions).size).toBe(definitions.length);
    expect(grammar).toContain('"<mcp__issue-tracker__get>"');
    expect(grammar).toContain('"<mcp__issue__tracker_get>"');
    expect(grammar).toMatch(/call ::= tool-read-file \| tool-mcp-issue-tracker-get \| tool-mcp-issue-tracker-get-2/);
  });

  it("parses an MCP call written under the grammar", () => {
    const parsed = parseTextToolCalls('<mcp__issue-tracker__get>\n<id>7</id>\n<filter>{"open":true}</filter>\n</mcp__issue-tracker__get>', tools);
    expect(parsed.calls[0]).toMatchObject({ name: "mcp__issue-tracker__get" });
  });
});
