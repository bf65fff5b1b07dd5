import { describe, expect, it } from "vitest";
import { createLoopHarness } from "./support/loop-harness.js";

const write = (path: string, content: string) => `<write_file>\n<path>${path}</path>\n<content>\n${content}\n</content>\n</write_file>`;
const read = (path: string) => `<read_file>\n<path>${path}</path>\n</read_file>`;
const complete = (result: string) => `<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`;
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("when a run ends", () => {
  it("the session's background processes are reaped, and nothing is pruned without checkpoints", async () => {
    const h = createLoopHarness([complete("nothing to do")]);
    const session = await h.start("Say hello");
    await h.finished(session);
    await settle();
    expect(h.tools.closed).toEqual([session]);
    expect(h.checkpoints.pruned).toEqual([]);
  });

  it("a run that checkpointed prunes the workspace's shadow repository", async () => {
    const h = createLoopHarness([write("a.txt", "hello"), read("a.txt"), complete("wrote a.txt")]);
    const session = await h.start("Create a.txt", { auto_approve: { edits: true, commands: [] } });
    await h.finished(session);
    await settle();
    expect(h.checkpoints.pruned).toHaveLength(1);
    expect(h.tools.closed).toEqual([session]);
  });
});
