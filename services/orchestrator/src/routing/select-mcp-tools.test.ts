import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "@aide/contracts";
import { MCP_TOOL_BUDGET, selectTools } from "./select-tools.js";

function own(name: string, readOnly: boolean): ToolDescriptor {
  return { name, description: name, parameters: { type: "object", properties: {} }, read_only: readOnly, parallel_safe: readOnly, handled_by: "tools" };
}
function mcp(server: string, tool: string): ToolDescriptor {
  return {
    name: `mcp__${server}__${tool}`,
    description: tool,
    parameters: { type: "object", properties: {} },
    read_only: false,
    parallel_safe: false,
    handled_by: "mcp",
    mcp: { server, tool, read_only_hint: true, auto_approved: false },
  };
}

const base = [own("read_file", true), own("list_dir", true), own("search_files", true), own("write_file", false), own("replace_in_file", false), own("attempt_completion", true)];
const many = Array.from({ length: 80 }, (_, index) => mcp("tracker", `op_${index}`));
const mcpNames = (tools: ToolDescriptor[]) => tools.filter((tool) => tool.handled_by === "mcp").map((tool) => tool.name);

describe("MCP tools in routing", () => {
  it("offers a few servers' tools whole in Act mode, none in Plan mode (no MCP tool is read-only, whatever its hint)", () => {
    const few = [mcp("docs", "search_docs"), mcp("docs", "get_page")];
    expect(mcpNames(selectTools("fix the bug", [...base, ...few], "act"))).toEqual(["mcp__docs__search_docs", "mcp__docs__get_page"]);
    expect(mcpNames(selectTools("fix the bug", [...base, ...few], "plan"))).toEqual([]);
  });

  it("does not flood a small window: 80 tools of one server shrink to the relevant ones within the budget", () => {
    const tools = [...base, ...many, mcp("tracker", "create_issue"), mcp("tracker", "close_issue")];
    const compact = selectTools("create an issue for the crash in the tracker", tools, "act", "compact");
    expect(mcpNames(compact).length).toBeLessThanOrEqual(MCP_TOOL_BUDGET.compact);
    expect(mcpNames(compact)[0]).toBe("mcp__tracker__create_issue");
    const full = selectTools("fix the failing test", tools, "act", "full");
    expect(mcpNames(full)).toEqual([]);
    // Our own tools are untouched by MCP tools.
    expect(full.map((tool) => tool.name)).toEqual(expect.arrayContaining(["read_file", "write_file", "attempt_completion"]));
  });
});
