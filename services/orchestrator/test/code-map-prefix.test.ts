import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/** A request's messages as one string in order: what a chat template lays out, role by role. */
function promptBytes(request: { messages: Array<{ role: string; content: string }> }): string {
  return request.messages.map((message) => `<|${message.role}|>\n${message.content}\n`).join("");
}

/**
 * AIDE_CODE_MAP_IN_PREFIX=1 over the real services: the tools service's code_map of the workspace
 * goes into the first turn's system message, and later turns only append to the prompt (the
 * structural condition for the local model's KV-cache reuse; bench:codemap-prefix measures it).
 */
describe.skipIf(skipReason !== "")(`the code map in the first turn's stable prefix${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.read("math.js") }, { text: call.read("math.test.js") }, { text: call.complete("math.js defines add and multiply; math.test.js tests add.") }], {
      orchestratorEnv: { AIDE_CODE_MAP_IN_PREFIX: "1" },
    });
  });
  afterAll(async () => stack?.stop());

  it("puts the map in the system message of turn 1 and every later turn's prompt starts with turn 1's", async () => {
    const reply = await stack.command("start", { task: "What do math.js and math.test.js contain?", workspace: stack.workspace });
    expect(reply).toMatchObject({ ok: true });
    const session = reply.result.session as string;
    const end = await stack.terminal(session);
    expect(end.payload).toMatchObject({ state: "done" });
    const requests = stack.modelRequests();
    expect(requests.length).toBe(3);
    const system = requests[0].messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain("# Code map\n");
    expect(system.content).toMatch(/math\.js[\s\S]*add\(a, b\)/);
    const first = promptBytes(requests[0]);
    for (const later of requests.slice(1)) {
      expect(later.messages[0].content).toBe(system.content);
      expect(promptBytes(later).startsWith(first)).toBe(true);
    }
    expect(promptBytes(requests[2]).startsWith(promptBytes(requests[1]))).toBe(true);
    const built = stack.events.filter((event) => event.session === session && event.type === "context.built");
    expect(built.length).toBe(3);
    for (const event of built) expect((event.payload as { code_map_tokens?: number }).code_map_tokens).toBeGreaterThan(0);
  });
});
