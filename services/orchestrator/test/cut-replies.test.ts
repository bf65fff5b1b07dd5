import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/**
 * A reply the output limit cut (`finish_reason: "length"`) is never silent: over the
 * real services, a scripted reply that stops inside replace_in_file's `<search>` gives a
 * `model.responded` naming the tool and the parameter that was open, and the model is told what
 * to send instead; a cut between parameters names the tool alone; a reply that stopped on its own
 * with the same unclosed text is an ordinary parse error, no cut.
 */
describe.skipIf(skipReason !== "")(`replies cut at the output limit${skipReason}`, () => {
  let stack: Stack;
  const inSearch = "<replace_in_file>\n<path>math.js</path>\n<search>\nfunction add(a, b) {\n  return a";
  beforeAll(async () => {
    stack = await startStack([], {
      models: {
        search: [{ text: inSearch, finish_reason: "length" }, { text: call.complete("gave up") }],
        between: [{ text: "<read_file>\n<path>math.js</path>\n", finish_reason: "length" }, { text: call.complete("gave up") }],
        stopped: [{ text: inSearch, finish_reason: "stop" }, { text: call.complete("gave up") }],
      },
    });
  }, 120_000);
  afterAll(async () => stack?.stop());

  async function responded(model: string) {
    const reply = await stack.command("start", { task: "Fix add in math.js", workspace: stack.workspace, model });
    expect(reply).toMatchObject({ ok: true });
    const session = reply.result.session as string;
    await stack.terminal(session, undefined, 120_000);
    const events = stack.events.filter((event) => event.session === session && event.type === "model.responded");
    return { first: events[0].payload as Record<string, unknown>, told: stack.modelRequests(model)[1].messages.at(-1)!.content };
  }

  it("a reply cut inside <search> names replace_in_file and search in model.responded, and tells the model to send a shorter <search>", async () => {
    const { first, told } = await responded("search");
    expect(first).toMatchObject({ finish_reason: "length", call_errors: 1, tool_calls: 0, cut: { tool: "replace_in_file", parameter: "search" } });
    expect((first.cut as { limit_tokens: number }).limit_tokens).toBeGreaterThan(0);
    expect(told).toContain("reached the output limit");
    expect(told).toContain("inside <search> of <replace_in_file>");
    expect(told).toContain("Send a shorter <search>: a few lines that identify the place");
  }, 180_000);

  it("a cut between parameters names the tool alone", async () => {
    const { first, told } = await responded("between");
    expect(first).toMatchObject({ finish_reason: "length", cut: { tool: "read_file" } });
    expect((first.cut as Record<string, unknown>).parameter).toBeUndefined();
    expect(told).toContain("inside the <read_file> call");
  }, 180_000);

  it("the same unclosed text in a reply that stopped on its own is a parse error, not a cut", async () => {
    const { first, told } = await responded("stopped");
    expect(first).toMatchObject({ finish_reason: "stop", call_errors: 1 });
    expect(first.cut).toBeUndefined();
    expect(told).toContain("was not closed");
    expect(told).not.toContain("output limit");
  }, 180_000);
});
