import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const sessions = 6;

/**
 * Issue 14 item 1: a tools service that takes one request at a time and lets one wait (everything
 * else is answered BUSY) serves six simultaneous sessions. Every start succeeds (its catalog
 * request waits out BUSY), every run reaches `done`, and no model ever reads BUSY in a tool
 * result: the orchestrator retried instead.
 */
describe.skipIf(skipReason !== "")(`sessions against a busy tools service${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.read("README.md") }, { text: call.read("package.json") }, { text: call.complete("Read README.md and package.json.") }], {
      toolsEnv: { AIDE_TOOLS_MAX_CONCURRENT: "1", AIDE_TOOLS_MAX_QUEUED: "1", AIDE_TOOLS_MAX_QUEUED_PER_SESSION: "1", AIDE_TOOLS_QUEUE_WAIT_MS: "200" },
    });
  }, 120_000);
  afterAll(async () => stack?.stop());

  it("every start succeeds, every run ends done, and BUSY never reaches a model", async () => {
    const starts = await Promise.all(
      Array.from({ length: sessions }, () => stack.command("start", { allow_concurrent: true, task: "What do README.md and package.json say?", workspace: stack.workspace }, 60_000)),
    );
    for (const started of starts) expect(started.ok, JSON.stringify(started)).toBe(true);
    const ids = starts.map((started) => started.result.session as string);
    const terminals = await Promise.all(ids.map((session) => stack.terminal(session, undefined, 90_000)));
    for (const terminal of terminals) expect(terminal.type === "run.completed" ? terminal.payload.state : `${terminal.type} ${JSON.stringify(terminal.payload)}`).toBe("done");
    const toolResults = stack.events.filter((e) => ids.includes(e.session) && e.type === "tool.completed");
    expect(toolResults.length).toBeGreaterThanOrEqual(sessions * 2);
    for (const result of toolResults) expect(JSON.stringify(result.payload)).not.toContain("BUSY");
    const told = stack
      .modelRequests()
      .flatMap((request) => request.messages.map((message) => message.content))
      .join("\n");
    expect(told).not.toContain("BUSY");
    // The service did refuse requests BUSY (the retries above were needed).
    expect(stack.services.tools!.logs()).toContain("request refused at admission");
  }, 180_000);
});
