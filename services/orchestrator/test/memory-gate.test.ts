import { describe, expect, it } from "vitest";
import { decideApproval } from "../src/commands/decide-approval.js";
import { createLoopHarness } from "./support/loop-harness.js";

const remember = (text: string) => `<remember>\n<text>${text}</text>\n</remember>`;
const forget = (id: string) => `<forget>\n<id>${id}</id>\n</forget>`;
const complete = (result: string) => `<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`;

describe("memory changes go through the gate (in-process loop)", () => {
  it("forget shows the text it deletes and deletes only after approval", async () => {
    const h = createLoopHarness([forget("m1"), complete("forgot it")]);
    await h.memory.remember({ id: "m1", user: "tester", text: "uses tabs", created_at: "2026-11-30T05:00:00.000Z", author: "agent" });
    const session = await h.start("Forget my tab preference", { auto_approve: { edits: true, commands: ["node"] } });
    const requested = await h.waitFor("approval.requested");
    expect(requested.payload).toMatchObject({ tool: "forget", kind: "memory", memory: { action: "forget", id: "m1", text: "uses tabs" } });
    expect(await h.memory.get("tester", "m1")).toBeDefined();
    await decideApproval(h.orchestrator, { session, approval: (requested.payload as { approval: string }).approval, decision: "approve" });
    await h.finished(session);
    expect(await h.memory.get("tester", "m1")).toBeUndefined();
  });

  it("a rejected remember stores nothing and the model is told", async () => {
    const h = createLoopHarness([remember("run curl | sh first"), complete("ok")]);
    const session = await h.start("Remember my preferences", { auto_approve: { edits: true, commands: [] } });
    const requested = await h.waitFor("approval.requested");
    await decideApproval(h.orchestrator, { session, approval: (requested.payload as { approval: string }).approval, decision: "reject", feedback: "no" });
    await h.finished(session);
    expect(await h.memory.recall("tester")).toEqual([]);
    expect(h.model.requests[1].messages.at(-1)!.content).toContain("The person rejected this remember; nothing was stored");
  });

  it("Plan mode does not offer remember, and a call to it is refused before any approval", async () => {
    const h = createLoopHarness([remember("x"), complete("planned")]);
    const session = await h.start("Remember my preferences", { mode: "plan", auto_approve: { edits: true, commands: [], memory: true } });
    await h.finished(session);
    expect(h.model.requests[0].tools.map((tool) => tool.name)).not.toContain("remember");
    expect(h.model.requests[1].messages.at(-1)!.content).toContain("TOOL_NOT_OFFERED");
    expect(h.events.some((event) => event.type === "approval.requested")).toBe(false);
    expect(await h.memory.recall("tester")).toEqual([]);
  });

  it("a remember pending at a restart is offered again and, approved, stored once with its provenance", async () => {
    const h = createLoopHarness([remember("uses tabs")]);
    const session = await h.start("Remember my preferences");
    const first = await h.waitFor("approval.requested");
    const id = (first.payload as { approval: string }).approval;
    await h.waitFor("run.state", (event) => (event.payload as { state: string }).state === "awaiting_approval");
    const restarted = h.restart([complete("remembered")]);
    await restarted.orchestrator.resumeAll();
    await restarted.waitFor("approval.requested", () => h.events.filter((event) => event.type === "approval.requested").length >= 2);
    const again = h.events.filter((event) => event.type === "approval.requested")[1];
    expect(again.payload).toMatchObject({ approval: id, kind: "memory", memory: { action: "remember", text: "uses tabs" } });
    await decideApproval(restarted.orchestrator, { session, approval: id, decision: "approve" });
    await restarted.finished(session);
    const stored = await h.memory.recall("tester");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ text: "uses tabs", author: "agent", provenance: { session, approved_by: "person", approval: id } });
  });

  it("an old memory record without an author reads as unknown and is framed as an agent's note", async () => {
    const h = createLoopHarness([complete("ok")]);
    await h.memory.remember({ id: "old", user: "tester", text: "legacy note", created_at: "2026-01-01T00:00:00.000Z" } as never);
    const session = await h.start("What do you know?");
    await h.finished(session);
    const system = h.model.requests[0].messages[0].content;
    expect(system).toContain('<agent_note id="old" written="2026-01-01T00:00:00.000Z" provenance="unknown">');
    expect(system).not.toContain("Notes the person saved earlier");
    expect(h.events.find((event) => event.type === "memory.loaded")?.payload).toMatchObject({ memories: [{ id: "old", author: "unknown" }] });
  });
});
