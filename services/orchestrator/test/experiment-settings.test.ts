/**
 * A run's experiment settings (an eval arm, `experiment` of the start) are honoured where each
 * decision is made, as the model sees it: the grammar flag and the prompt tier of the model
 * request, the one edit tool of an edit format, no compaction request under the drop policy;
 * `run.created` and every envelope say which settings were in force.
 */
import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { fakeCatalog } from "./support/fake-ports.js";
import { createLoopHarness } from "./support/loop-harness.js";

const editTool = (name: string): ToolDescriptor => ({
  name,
  description: name,
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  read_only: false,
  parallel_safe: false,
  handled_by: "tools",
});
/** The fake catalog with the other two edit tools, so an edit format has something to choose. */
function harness(replies: string[], config = {}) {
  const h = createLoopHarness(replies, { config });
  h.tools.list = async () => [...fakeCatalog, editTool("replace_in_file"), editTool("apply_patch")];
  return h;
}

const toolNames = (request: { tools: Array<{ name: string }> }) => request.tools.map((tool) => tool.name);

describe("experiment settings of a run", () => {
  it("the grammar flag, the prompt tier and the edit format reach the model request; run.created records them", async () => {
    const plain = harness([call.read("a.txt"), call.complete("read it")]);
    plain.tools.files.set("a.txt", "alpha\n");
    await plain.finished(await plain.start("Fix the bug in a.txt"));
    const arm = harness([call.read("a.txt"), call.complete("read it")]);
    arm.tools.files.set("a.txt", "alpha\n");
    const session = await arm.start("Fix the bug in a.txt", { experiment: { arm: "lean", grammar: false, prompt_tier: "compact", edit_format: "unified-diff", scheduler: "serial-v1" } });
    await arm.finished(session);

    const [before, after] = [plain.model.requests[0], arm.model.requests[0]];
    expect(before.grammar).toBeUndefined();
    expect(after.grammar).toBe(false);
    // The compact tier's system contract is the smaller one.
    expect(after.messages[0].content.length).toBeLessThan(before.messages[0].content.length / 2);
    expect(toolNames(before)).toEqual(expect.arrayContaining(["write_file", "replace_in_file"]));
    expect(toolNames(after)).toContain("apply_patch");
    expect(toolNames(after)).not.toContain("write_file");
    expect(toolNames(after)).not.toContain("replace_in_file");

    const created = arm.events.find((event) => event.type === "run.created")!;
    expect(created.payload).toMatchObject({
      experiment: { arm: "lean", grammar: false, prompt_tier: "compact", edit_format: "unified-diff", scheduler: "serial-v1", context_policy: "stable-prefix-compact-v1", strategy: "agent-loop-v3" },
    });
    expect(new Set(arm.events.map((event) => event.scheduler))).toEqual(new Set(["serial-v1"]));
    expect(plain.events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { scheduler: "safe-parallel-v1", edit_format: "routed-v1" } });
  });

  it("the grammar's scope and schema switch reach the model request and run.created; absent, the request leaves them to the model service", async () => {
    const plain = harness([call.read("a.txt"), call.complete("read it")]);
    plain.tools.files.set("a.txt", "alpha\n");
    await plain.finished(await plain.start("Read a.txt"));
    const arm = harness([call.read("a.txt"), call.complete("read it")]);
    arm.tools.files.set("a.txt", "alpha\n");
    await arm.finished(await arm.start("Read a.txt", { experiment: { arm: "whole-strict", grammar: true, grammar_scope: "reply", grammar_schema: true } }));
    expect(plain.model.requests[0]).not.toHaveProperty("grammar_scope");
    expect(plain.model.requests[0]).not.toHaveProperty("grammar_schema");
    for (const request of arm.model.requests) expect(request).toMatchObject({ grammar: true, grammar_scope: "reply", grammar_schema: true });
    const created = arm.events.find((event) => event.type === "run.created")!;
    expect(created.payload).toMatchObject({ experiment: { arm: "whole-strict", grammar: true, grammar_scope: "reply", grammar_schema: true } });
  });

  it("a call to an edit tool the format does not offer is refused, not run; the rules name the one offered", async () => {
    const h = harness([call.write("b.txt", "beta"), call.complete("tried")]);
    const session = await h.start("Create b.txt", { experiment: { edit_format: "search-replace" }, auto_approve: { edits: true, commands: [] } });
    await h.finished(session);
    const completed = h.events.find((event) => event.type === "tool.completed" && event.payload.tool === "write_file")!;
    expect(completed.payload).toMatchObject({ is_error: true });
    expect(String(completed.payload.summary)).toContain("TOOL_NOT_OFFERED");
    expect(h.tools.files.has("b.txt")).toBe(false);
    // The full tier's rules name the one edit tool offered, and how it creates a file.
    const system = h.model.requests[0].messages[0].content;
    expect(system).toContain("Edit with replace_in_file (SEARCH/REPLACE blocks: SEARCH copied exactly from the file, small blocks, first match only; an empty SEARCH creates a new file).");
    expect(system).not.toContain("or write_file");
  });

  it("the drop policy never asks the model for a summary; the default compacts once", async () => {
    const big = "x".repeat(3_000);
    const run = async (policy?: "stable-prefix-drop-v1") => {
      const replies = policy
        ? [call.read("a.txt"), call.read("b.txt"), call.read("c.txt"), call.complete("done")]
        : [call.read("a.txt"), call.read("b.txt"), "Summary: x.", call.read("c.txt"), call.complete("done")];
      const h = createLoopHarness(replies, { config: { contextChars: 9_000 } });
      for (const name of ["a.txt", "b.txt", "c.txt"]) h.tools.files.set(name, big);
      await h.finished(await h.start("What do the files say?", policy ? { experiment: { context_policy: policy } } : {}));
      return h;
    };
    const compacting = await run();
    expect(compacting.model.requests.some((request) => request.tools.length === 0)).toBe(true);
    const dropping = await run("stable-prefix-drop-v1");
    expect(dropping.model.requests.some((request) => request.tools.length === 0)).toBe(false);
    const built = dropping.events.filter((event) => event.type === "context.built").map((event) => event.payload as { compacted: boolean; dropped: number });
    expect(built.every((payload) => !payload.compacted)).toBe(true);
    expect(built.some((payload) => payload.dropped > 0)).toBe(true);
    expect(dropping.events.at(-1)!.context_policy).toBe("stable-prefix-drop-v1");
  });
});
