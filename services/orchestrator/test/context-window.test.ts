import { describe, expect, it } from "vitest";
import { aideError, type ModelChatRequest } from "@aide/contracts";
import { createLoopHarness } from "./support/loop-harness.js";

const read = (path: string) => `<read_file>\n<path>${path}</path>\n</read_file>`;
const complete = (result: string) => `<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`;
const chars = (request: ModelChatRequest) => request.messages.reduce((sum, message) => sum + message.content.length, 0);

/** Makes the harness's scripted model refuse prompts over `limit` characters, as a real window does. */
function withWindow(h: ReturnType<typeof createLoopHarness>, limit: number, reportedTokens?: number) {
  const chat = h.model.chat.bind(h.model);
  const refused: number[] = [];
  h.model.chat = async (request, onDelta) => {
    if (chars(request) > limit) {
      refused.push(chars(request));
      throw aideError("CONTEXT_FULL", { detail: `the prompt needs more than the window holds` });
    }
    if (request.tools.length === 0) {
      return {
        request_id: request.request_id,
        model: "scripted",
        text: "Earlier: read several files.",
        tool_calls: [],
        finish_reason: "stop",
        usage: { prompt_tokens: 1, completion_tokens: 1 },
        timings: { total_ms: 1 },
      };
    }
    return chat(request, onDelta);
  };
  if (reportedTokens !== undefined) (h.model as { contextTokens?: () => Promise<number> }).contextTokens = async () => reportedTokens;
  return refused;
}

describe("the model's context window", () => {
  it("asks for a tool call on every turn (tool_choice required)", async () => {
    const h = createLoopHarness([complete("nothing to do")]);
    await h.finished(await h.start("Say hello"));
    expect(h.model.requests[0].tool_choice).toBe("required");
  });

  it("sizes the context budget from the model's window, not only the configured characters", async () => {
    const h = createLoopHarness([read("a.txt"), read("b.txt"), read("c.txt"), complete("read three files")]);
    for (const name of ["a.txt", "b.txt", "c.txt"]) h.tools.files.set(name, "x".repeat(3000));
    withWindow(h, Number.POSITIVE_INFINITY, 4000);
    await h.finished(await h.start("Read a.txt, b.txt and c.txt"));
    const built = h.events.filter((event) => event.type === "context.built").map((event) => (event.payload as { chars: number }).chars);
    expect(Math.max(...built)).toBeLessThanOrEqual(4000 * 3 * 0.75);
  });

  it("on CONTEXT_FULL shrinks the budget (compacting or dropping the oldest part) and asks again; the run goes on", async () => {
    const h = createLoopHarness([read("a.txt"), read("b.txt"), read("c.txt"), complete("read three files")]);
    for (const name of ["a.txt", "b.txt", "c.txt"]) h.tools.files.set(name, "y".repeat(4000));
    const refused = withWindow(h, 14_000);
    const end = await h.finished(await h.start("Read a.txt, b.txt and c.txt"));
    expect(refused.length).toBeGreaterThan(0);
    expect(end.type).toBe("run.completed");
    const built = h.events.filter((event) => event.type === "context.built").map((event) => event.payload as { chars: number; dropped: number; compacted: boolean });
    const after = built.slice(built.findIndex((payload) => payload.chars > 14_000) + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const payload of after) {
      expect(payload.chars).toBeLessThanOrEqual(14_000);
      expect(payload.compacted || payload.dropped > 0).toBe(true);
    }
  });

  it("ends with CONTEXT_FULL when even the system contract does not fit", async () => {
    const h = createLoopHarness([complete("never reached")]);
    withWindow(h, 500);
    const end = await h.finished(await h.start("Say hello"));
    expect(end.type).toBe("run.failed");
    expect(end.payload).toMatchObject({ error: { code: "CONTEXT_FULL" } });
  });
});
