import { describe, expect, it } from "vitest";
import { changeMode } from "../src/commands/change-mode.js";
import { createLoopHarness } from "./support/loop-harness.js";

const write = (path: string, content: string) => `<write_file>\n<path>${path}</path>\n<content>\n${content}\n</content>\n</write_file>`;
const read = (path: string) => `<read_file>\n<path>${path}</path>\n</read_file>`;
const complete = (result: string) => `<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`;
const switchToAct = `<switch_to_act_mode>\n<plan>write plan.txt</plan>\n</switch_to_act_mode>`;

describe("the person's Plan/Act switch mid-run", () => {
  it("choosing Act while the model's switch request waits approves that request: one decision, one mode change, the run goes on", async () => {
    const h = createLoopHarness([switchToAct, write("plan.txt", "x"), read("plan.txt"), complete("Wrote plan.txt")]);
    const session = await h.start("Create plan.txt", { mode: "plan", auto_approve: { edits: true, commands: [] } });
    const request = await h.waitFor("approval.requested", (event) => (event.payload as { kind?: string }).kind === "mode_switch");
    expect(await changeMode(h.orchestrator, session, "act")).toEqual({ mode: "act", seq: expect.any(Number) });
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ state: "done" });
    const approval = (request.payload as { approval: string }).approval;
    const decided = h.events.filter((event) => event.type === "approval.decided" && (event.payload as { decision: string }).decision !== "auto");
    expect(decided.map((event) => event.payload)).toEqual([expect.objectContaining({ approval, decision: "approve" })]);
    expect(h.events.filter((event) => event.type === "mode.changed").map((event) => event.payload)).toEqual([{ mode: "act" }]);
    expect(h.tools.files.get("plan.txt")).toContain("x");
  });

  it("without a pending request the switch applies at once, and to the same mode changes nothing", async () => {
    const h = createLoopHarness([read("README.md"), complete("Read it")]);
    const session = await h.start("Read the README", { mode: "act" });
    await h.finished(session);
    // Each reply names the event seq its mode is current at: the session's last event when nothing
    // changed, the mode.changed it emitted when it did.
    const lastSeq = () => Math.max(...h.events.filter((event) => event.session === session).map((event) => event.seq));
    expect(await changeMode(h.orchestrator, session, "act")).toEqual({ mode: "act", seq: lastSeq() });
    expect(h.events.filter((event) => event.type === "mode.changed")).toEqual([]);
    const planned = await changeMode(h.orchestrator, session, "plan");
    await h.waitFor("mode.changed", () => true);
    const changed = h.events.filter((event) => event.type === "mode.changed");
    expect(changed.map((event) => event.payload)).toEqual([{ mode: "plan" }]);
    expect(planned).toEqual({ mode: "plan", seq: changed[0].seq });
  });
});
