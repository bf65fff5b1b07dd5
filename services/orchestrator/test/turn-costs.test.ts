import { describe, expect, it } from "vitest";
import { sessionSnapshot } from "../src/commands/session-snapshot.js";
import { createLoopHarness } from "./support/loop-harness.js";

const read = (path: string) => `<read_file>\n<path>${path}</path>\n</read_file>`;
const complete = (result: string) => `<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`;

describe("model.responded carries what a turn cost", () => {
  it("prompt tokens reused from the cache when the model service says how many it evaluated, and the model that answered", async () => {
    const h = createLoopHarness([
      { text: read("README.md"), model: "luna", usage: { prompt_tokens: 1000, completion_tokens: 20, evaluated_prompt_tokens: 1000 } },
      { text: complete("Read the README"), model: "luna", usage: { prompt_tokens: 1100, completion_tokens: 12, evaluated_prompt_tokens: 130 } },
    ]);
    const session = await h.start("Read the README");
    await h.finished(session);
    const turns = h.events.filter((event) => event.type === "model.responded").map((event) => event.payload);
    expect(turns).toEqual([
      expect.objectContaining({ prompt_tokens: 1000, completion_tokens: 20, cached_prompt_tokens: 0, model: "luna" }),
      expect.objectContaining({ prompt_tokens: 1100, completion_tokens: 12, cached_prompt_tokens: 970, model: "luna" }),
    ]);
    // The run named no model: the list shows the one that answered.
    const record = (await h.store.get(session))!;
    expect(sessionSnapshot(record).model).toBe("luna");
  });

  it("no cache figure when the provider gives none (never a guess)", async () => {
    const h = createLoopHarness([read("README.md"), complete("Read the README")]);
    const session = await h.start("Read the README");
    await h.finished(session);
    const turns = h.events.filter((event) => event.type === "model.responded").map((event) => event.payload as Record<string, unknown>);
    expect(turns).toHaveLength(2);
    for (const turn of turns) expect(turn).not.toHaveProperty("cached_prompt_tokens");
  });
});
