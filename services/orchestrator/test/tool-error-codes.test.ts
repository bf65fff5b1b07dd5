import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const replies = [
  { text: `Reading the notes next door.\n${call.read("../outside-notes.txt")}` },
  { text: `Writing next door.\n${call.write("../escape.txt", "pwned")}` },
  { text: call.complete("Could not reach either file.") },
];

/**
 * A path refusal keeps its stable code from the tools service (exec and preview alike) through the
 * orchestrator to the `tool.completed` event and the tool result the model reads next.
 */
describe.skipIf(skipReason !== "")(`a path refusal keeps its code to the events and the model${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(replies);
    writeFileSync(join(stack.dir, "outside-notes.txt"), "secret next door\n");
  });
  afterAll(async () => stack?.stop());

  it("PATH_OUTSIDE_WORKSPACE for a read (exec) and a write (preview) reaches tool.completed and the model", async () => {
    const started = await stack.command("start", { task: "Read and write the notes", workspace: stack.workspace, user: "alice" });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    const session = started.result.session as string;
    const completed = (tool: string) => stack.waitFor((e) => e.session === session && e.type === "tool.completed" && (e.payload as { tool: string }).tool === tool);
    const read = await completed("read_file");
    expect(read.payload).toMatchObject({ is_error: true, metadata: { error_code: "PATH_OUTSIDE_WORKSPACE" } });
    const write = await completed("write_file");
    expect(write.payload).toMatchObject({ is_error: true, metadata: { error_code: "PATH_OUTSIDE_WORKSPACE" } });
    await stack.terminal(session);
    const prompts = stack.modelRequests().map((request) => request.messages.map((message) => message.content).join("\n"));
    expect(prompts[1]).toMatch(/<tool_result [^>]*tool="read_file" status="error" code="PATH_OUTSIDE_WORKSPACE">/);
    expect(prompts[2]).toMatch(/<tool_result [^>]*tool="write_file" status="error" code="PATH_OUTSIDE_WORKSPACE">/);
    expect(prompts.join("\n")).not.toContain("secret next door");
  });
});
