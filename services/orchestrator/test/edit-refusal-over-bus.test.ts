import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/**
 * An edit the tools service refuses at preview keeps its code all the way: the tool.completed
 * event's metadata and the text of the model's next message, with the real services.
 */
describe.skipIf(skipReason !== "")(`edit refusal codes over the real services${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([
      { text: call.replace("math.js", "export function add(a, b) {\n    return a - b; // hallucinated", "export function add(a, b) {\n  return a + b;") },
      { text: call.complete("Tried to fix add().") },
    ]);
  });
  afterAll(async () => stack?.stop());

  it("EDIT_NOT_FOUND reaches tool.completed and the model, and nothing is written", async () => {
    const before = readFileSync(join(stack.workspace, "math.js"), "utf8");
    const reply = await stack.command("start", { task: "Fix add() in math.js", workspace: stack.workspace });
    expect(reply).toMatchObject({ ok: true });
    const session = reply.result.session as string;
    const completed = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "replace_in_file");
    expect(completed.payload).toMatchObject({ is_error: true, metadata: { preview: true, error_code: "EDIT_NOT_FOUND" } });
    await stack.terminal(session);
    const requests = stack.modelRequests();
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(requests[1].messages)).toContain("EDIT_NOT_FOUND: The SEARCH text was not found in math.js");
    expect(readFileSync(join(stack.workspace, "math.js"), "utf8")).toBe(before);
    expect(stack.invalidEvents).toEqual([]);
  });
});
