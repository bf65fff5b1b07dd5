import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "@aide/contracts";
import { toParserSpecs } from "./tool-spec.js";
import { parseToolCalls } from "./parse-tool-calls.js";

function descriptor(name: string, properties: string[], required: string[]): ToolDescriptor {
  return {
    name,
    description: name,
    parameters: {
      type: "object",
      properties: Object.fromEntries(properties.map((property) => [property, { type: "string" }])),
      required,
      additionalProperties: false,
    },
    read_only: false,
    parallel_safe: false,
    handled_by: "tools",
  };
}

describe("toParserSpecs", () => {
  const catalog = [
    descriptor("read_file", ["path", "offset", "limit"], ["path"]),
    descriptor("write_file", ["path", "content"], ["path", "content"]),
    descriptor("run_command", ["command", "timeout_ms"], ["command"]),
    descriptor("git_status", [], []),
  ];

  it("takes params from properties and required from required", () => {
    const specs = toParserSpecs(catalog);
    expect(specs[0]).toMatchObject({ name: "read_file", params: ["path", "offset", "limit"], required: ["path"] });
    expect(specs[3]).toMatchObject({ name: "git_status", params: [], required: [] });
  });

  it("adds habitual aliases only for names present in the catalog", () => {
    const specs = toParserSpecs(catalog);
    const write = specs.find((spec) => spec.name === "write_file");
    expect(write?.aliases).toMatchObject({ write_to_file: "write_file", file_path: "path", file_text: "content" });
    expect(write?.aliases?.["cmd"]).toBeUndefined();
    const result = parseToolCalls("<execute_command><cmd>ls</cmd></execute_command>", specs);
    expect(result.calls).toEqual([expect.objectContaining({ name: "run_command", arguments: { command: "ls" } })]);
  });

  it("tolerates a schema without properties", () => {
    const bare = { ...catalog[0], parameters: {} };
    expect(toParserSpecs([bare])[0]).toMatchObject({ params: [], required: [] });
  });
});
