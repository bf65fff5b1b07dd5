import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "@aide/contracts";
import type { BatchCall } from "../session/session-record.js";
import { groupCalls } from "./execute-tool-calls.js";

const tool = (name: string, read_only: boolean, parallel_safe: boolean): ToolDescriptor => ({
  name,
  description: "",
  parameters: {},
  read_only,
  parallel_safe,
  handled_by: "tools",
});
const catalog = [tool("read_file", true, true), tool("search_files", true, true), tool("write_file", false, false), tool("run_command", false, false), tool("spawn_agent", true, true)];
const call = (name: string, args: Record<string, unknown> = {}): BatchCall => ({ id: `${name}-${Math.random()}`, name, arguments: args, status: "queued", network: false });

describe("groupCalls (safe-parallel-v1 scheduler)", () => {
  it("groups consecutive parallel-safe reads; mutations stand alone; order is kept", () => {
    const calls = [call("read_file"), call("search_files"), call("write_file"), call("read_file"), call("run_command"), call("run_command")];
    const groups = groupCalls(calls, catalog);
    expect(groups.map((group) => group.map((c) => c.name))).toEqual([["read_file", "search_files"], ["write_file"], ["read_file"], ["run_command"], ["run_command"]]);
    expect(groups.flat()).toEqual(calls);
  });
  it("read-only child agents may run in parallel; a writing child is serialized", () => {
    const groups = groupCalls([call("spawn_agent", { write: "false" }), call("spawn_agent", {}), call("spawn_agent", { write: "true" }), call("read_file")], catalog);
    expect(groups.map((group) => group.length)).toEqual([2, 1, 1]);
  });
  it("an unknown tool is never parallel", () => {
    expect(groupCalls([call("mystery"), call("mystery")], catalog).map((group) => group.length)).toEqual([1, 1]);
  });
});
