import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentEventSchema } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/** One model message with three calls: the person rejects the first; the other two are skipped. */
const replies = [
  { text: `I will write the file, then check it.\n${call.write("a.txt", "x")}\n${call.run("cat a.txt")}\n${call.read("a.txt")}` },
  { text: call.complete("Nothing was changed: the person rejected the write.") },
  { text: call.complete("Nothing was changed: the person rejected the write.") },
  { text: call.complete("Nothing was changed: the person rejected the write.") },
];

/**
 * Calls of a model message skipped after the person rejected an earlier one leave a trace in the
 * stream: each gets a `tool.completed` that says it was skipped and why. Over the real services.
 */
describe.skipIf(skipReason !== "")(`calls skipped after a rejection are recorded${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(replies, { contextBudget: 32_768 });
  }, 120_000);
  afterAll(async () => stack?.stop());

  it("write rejected → `cat a.txt` and read_file a.txt each get tool.completed { skipped: earlier_call_rejected }, no tool.started", async () => {
    const started = await stack.command("start", { task: "Create a.txt containing x, then show it.", workspace: stack.workspace });
    const session = started.result.session as string;
    const approval = await stack.waitFor((event) => event.session === session && event.type === "approval.requested", 30_000);
    await stack.command("decision", { session, approval: (approval.payload as { approval: string }).approval, decision: "reject", feedback: "Not now." });
    await stack.terminal(session, undefined, 60_000);

    const events = stack.events.filter((event) => event.session === session);
    const completed = events
      .filter((event) => event.type === "tool.completed")
      .map((event) => event.payload as { call_id: string; tool: string; is_error: boolean; skipped?: string; summary: string; metadata: Record<string, unknown> });
    const calls = completed.filter((payload) => payload.tool !== "attempt_completion");
    expect(calls.map((payload) => [payload.tool, payload.skipped])).toEqual([
      ["write_file", undefined],
      ["run_command", "earlier_call_rejected"],
      ["read_file", "earlier_call_rejected"],
    ]);
    expect(calls[0].metadata).toMatchObject({ denied: "rejected" });
    for (const skipped of calls.slice(1)) {
      expect(skipped.is_error).toBe(true);
      expect(skipped.summary).toContain("Not run: an earlier call in this message was rejected");
    }
    const startedIds = events.filter((event) => event.type === "tool.started").map((event) => (event.payload as { call_id: string }).call_id);
    expect(startedIds.filter((id) => calls.slice(1).some((payload) => payload.call_id === id))).toEqual([]);
    // The model reads the same in its next request.
    expect(JSON.stringify(stack.modelRequests()[1].messages)).toContain("Not run: an earlier call in this message was rejected");
    expect(existsSync(join(stack.workspace, "a.txt"))).toBe(false);
    expect(stack.invalidEvents).toEqual([]);
  });

  it("a tool.completed of an older build (no skipped field) still parses", () => {
    const older = {
      session: "s1",
      run: "r1",
      seq: 5,
      ts: new Date().toISOString(),
      user: "local",
      depth: 0,
      strategy: "agent-loop-v3",
      scheduler: "safe-parallel-v1",
      context_policy: "stable-prefix-compact-v1",
      type: "tool.completed",
      payload: { call_id: "c", tool: "read_file", args: {}, is_error: false, summary: "ok", duration_ms: 1, metadata: {} },
    };
    const parsed = AgentEventSchema.safeParse(older);
    expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues)).toBe(true);
  });
});
