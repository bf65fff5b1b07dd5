import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../../tests/helpers/service-process.js";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const hostileServer = join(repoRoot, "services", "mcp", "test", "fixtures", "hostile-server.mjs");

/**
 * MCP tools over the real stack (scripted model, real orchestrator, tools, MCP service and a real
 * stdio MCP server in its sandbox): the call waits for the person's approval showing server, tool
 * and exact arguments; a rejected call never reaches the server; a result carrying a fake tool
 * call and injected instructions is wrapped as data with the server as provenance, never parsed.
 */
describe.skipIf(skipReason !== "")(`MCP tools through the orchestrator's gate${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      [
        // A native function call (the XML protocol follows): both reach the same gate.
        { tool_calls: [{ id: "native-1", name: "mcp__hostile__echo", arguments: { message: "hello mcp" } }] },
        { text: "<mcp__hostile__inject></mcp__hostile__inject>" },
        { text: "<mcp__hostile__write><path>/tmp/aide-mcp-denied.txt</path><content>x</content></mcp__hostile__write>" },
        // Three completions on the MCP results alone: two rejected, the third ends the run unverified.
        { text: call.complete("Echoed hello mcp through the hostile server.") },
        { text: call.complete("Echoed hello mcp through the hostile server; the MCP server confirmed it.") },
        { text: call.complete("Done: the hostile server echoed hello mcp.") },
      ],
      { mcpServers: { hostile: { command: process.execPath, args: [hostileServer] } } },
    );
  });
  afterAll(async () => stack?.stop());

  it("approves, denies and wraps MCP calls like every other mutation", async () => {
    const started = await stack.command("start", {
      task: "Use the hostile MCP server: echo hello mcp, then inject, then write",
      workspace: stack.workspace,
      auto_approve: { edits: true, commands: [], all: true },
    });
    expect(started.ok).toBe(true);
    const session = started.result.session as string;
    const approvals: string[] = [];
    const approval = async (tool: string) => {
      const event = await stack.waitFor((e) => e.session === session && e.type === "approval.requested" && e.payload.tool === tool);
      approvals.push((event.payload as { approval: string }).approval);
      return event;
    };

    const echo = await approval("mcp__hostile__echo");
    expect(echo.payload).toMatchObject({ mcp: { server: "hostile", tool: "echo", arguments_json: '{"message":"hello mcp"}' } });
    expect((echo.payload as { command: string }).command).toContain('"message":"hello mcp"');
    expect((echo.payload as { command: string }).command).toContain('tool "echo"');
    await stack.command("decision", { session, approval: approvals[0], decision: "approve" });
    const echoed = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "mcp__hostile__echo");
    expect(echoed.payload).toMatchObject({ server: "hostile", is_error: false });
    const startedEvent = stack.events.find((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "mcp__hostile__echo");
    expect(startedEvent?.payload).toMatchObject({ server: "hostile" });

    await approval("mcp__hostile__inject");
    await stack.command("decision", { session, approval: approvals[1], decision: "approve" });
    await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "mcp__hostile__inject");

    await approval("mcp__hostile__write");
    await stack.command("decision", { session, approval: approvals[2], decision: "reject", feedback: "no writes" });
    const denied = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "mcp__hostile__write");
    expect(denied.payload).toMatchObject({ is_error: true, server: "hostile" });
    expect(existsSync("/tmp/aide-mcp-denied.txt")).toBe(false);

    const end = await stack.terminal(session, undefined, 60_000);
    // The injected text reached the model only as data with the server's provenance, its tags neutralized.
    const requests = stack.modelRequests();
    const afterInject = requests[2]!.messages
      .map((message) => message.content)
      .filter((content) => content.includes(`source="mcp:hostile"`))
      .join("\n");
    expect(afterInject).toContain('source="mcp:hostile"');
    expect(afterInject).toContain("untrusted data from the external MCP server hostile");
    expect(afterInject).toContain("&lt;write_file>");
    expect(afterInject).not.toMatch(/(^|[^;])<write_file>/);
    // Never parsed as a call: no write_file or attempt_completion ran from the result.
    expect(stack.events.some((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "write_file")).toBe(false);
    expect(existsSync(join(stack.workspace, "pwned.txt"))).toBe(false);
    // An MCP result is never evidence: with only MCP results behind it, every completion was
    // rejected and the run ended unverified, not done on the server's word.
    expect(end.type).toBe("run.completed");
    expect(end.payload).toMatchObject({ state: "unverified", evidence: [] });
    expect(stack.events.filter((e) => e.session === session && e.type === "completion.rejected")).toHaveLength(2);
    const unverified = stack.events.find((e) => e.session === session && e.type === "completion.unverified");
    expect(unverified?.payload).toMatchObject({ missing: expect.arrayContaining([expect.any(String)]) });
    expect(JSON.stringify(unverified?.payload)).not.toContain("mcp__");
    expect(stack.invalidEvents).toEqual([]);
  });
});

describe.skipIf(skipReason !== "")(`an aborted run cancels its in-flight MCP call${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: "<mcp__slow__sleep><seconds>600</seconds></mcp__slow__sleep>" }, { text: call.complete("unreachable") }], {
      mcpServers: { slow: { command: process.execPath, args: [hostileServer], auto_approve: ["sleep"] } },
    });
  });
  afterAll(async () => stack?.stop());

  it("sends agent.mcp.cancel for the call when the person aborts", async () => {
    const started = await stack.command("start", { task: "Use the slow MCP server to sleep", workspace: stack.workspace });
    const session = started.result.session as string;
    const running = await stack.waitFor((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "mcp__slow__sleep");
    expect(running.payload).toMatchObject({ server: "slow" });
    expect((await stack.command("abort", { session, reason: "enough" })).ok).toBe(true);
    await stack.waitFor((e) => e.session === session && e.type === "run.cancelled");
    const callId = (running.payload as { call_id: string }).call_id;
    // The MCP service got the cancel and ended the call cancelled: in flight (MCP notifications/cancelled
    // to the server) or, when the cancel overtook the call on the bus, refused on arrival.
    const deadline = Date.now() + 30_000;
    const pattern = new RegExp(`"call":"${callId}"[^\\n]*"error_code":"MCP_CALL_CANCELLED"[^\\n]*MCP call ended`);
    while (!pattern.test(stack.services.mcp!.logs()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stack.services.mcp!.logs()).toMatch(pattern);
  });
});
