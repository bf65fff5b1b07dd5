import { describe, expect, it } from "vitest";
import { decideApproval } from "../src/commands/decide-approval.js";
import { sendMessage } from "../src/commands/send-message.js";
import { changeMode } from "../src/commands/change-mode.js";
import { createLoopHarness } from "./support/loop-harness.js";

const read = (path: string) => `<read_file>\n<path>${path}</path>\n</read_file>`;
const write = (path: string, content: string) => `<write_file>\n<path>${path}</path>\n<content>\n${content}\n</content>\n</write_file>`;
const run = (command: string) => `<run_command>\n<command>${command}</command>\n</run_command>`;
const complete = (result: string) => `<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`;

describe("guards in the loop", () => {
  it("an unchanged failed command is blocked until something changes", async () => {
    const h = createLoopHarness([run("node t.js"), run("node t.js"), write("t.js", "fixed"), run("node t.js"), complete("tests pass")]);
    h.tools.commands["node t.js"] = { exit: 1, output: "Error: boom" };
    const session = await h.start("Run the tests", { auto_approve: { edits: true, commands: ["node"] } });
    await h.waitFor("tool.completed", (event) => (event.payload as { tool: string }).tool === "write_file");
    h.tools.commands["node t.js"] = { exit: 0, output: "ok" };
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ state: "done" });
    expect(h.tools.execs.filter((exec) => exec.arguments["command"] === "node t.js")).toHaveLength(2);
    expect(h.model.requests[2].messages.at(-1)!.content).toMatch(/blocked|unchanged|same/i);
  });

  it("an identical successful write is skipped; literal \\n in source content is decoded", async () => {
    const escaped = "line1\\nline2\\nline3\\nline4";
    const h = createLoopHarness([write("a.py", escaped), write("a.py", escaped), read("a.py"), complete("wrote a.py")]);
    const session = await h.start("Create a.py", { auto_approve: { edits: true, commands: [] } });
    await h.finished(session);
    expect(h.tools.files.get("a.py")).toContain("line1\nline2");
    expect(h.tools.execs.filter((exec) => exec.name === "write_file")).toHaveLength(1);
  });

  it("an approval nobody answers is denied after the timeout and the model is told", async () => {
    const h = createLoopHarness([write("a.txt", "x"), complete("could not write")], { config: { approvalTimeoutMs: 20 } });
    const session = await h.start("What is in the folder?");
    const decided = await h.waitFor("approval.decided");
    expect(decided.payload).toMatchObject({ decision: "timeout" });
    await h.finished(session);
    expect(h.tools.files.has("a.txt")).toBe(false);
    expect(h.model.requests[1].messages.at(-1)!.content).toMatch(/default deny/);
    expect(h.orchestrator.sessions.get(session)!.record.approvals).toEqual([]);
  });

  it("the per-run wall-clock budget ends the run", async () => {
    const h = createLoopHarness([read("a"), read("b"), read("c")], { config: { runBudgetMs: 1 } });
    const session = await h.start("Look around");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ error: { code: "RUN_BUDGET_EXCEEDED" } });
  });

  it("native tool calls from the provider take the same path as parsed ones", async () => {
    const h = createLoopHarness([
      { text: "", tool_calls: [{ id: "n1", name: "read_file", arguments: { path: "a.txt" } }] },
      { text: "", tool_calls: [{ id: "n2", name: "attempt_completion", arguments: { result: "a.txt says hi" } }] },
    ]);
    h.tools.files.set("a.txt", "hi");
    const session = await h.start("What does a.txt say?");
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ state: "done" });
    const toolMessage = h.model.requests[1].messages.find((message) => message.role === "tool");
    expect(toolMessage).toMatchObject({ tool_call_id: "n1" });
    expect(toolMessage!.content).toContain("hi");
  });
});

describe("egress journal", () => {
  it("a consented network command whose journal entry cannot be written is not run", async () => {
    const h = createLoopHarness([run("curl https://example.com"), complete("could not fetch")]);
    h.egress.fail = true;
    const session = await h.start("Fetch example.com with curl");
    const requested = await h.waitFor("approval.requested");
    await decideApproval(h.orchestrator, { session, approval: (requested.payload as { approval: string }).approval, decision: "approve", consent_network: true });
    await h.finished(session);
    expect(h.tools.execs).toHaveLength(0);
    expect(h.model.requests[1].messages.at(-1)!.content).toMatch(/egress journal/);
  });
});

describe("context policy", () => {
  it("keeps the prompt prefix stable: every request extends the previous one", async () => {
    const h = createLoopHarness([read("a.txt"), read("b.txt"), read("c.txt"), complete("read them")]);
    for (const name of ["a.txt", "b.txt", "c.txt"]) h.tools.files.set(name, `content of ${name}`);
    const session = await h.start("What do the files say?");
    await h.finished(session);
    for (let index = 1; index < h.model.requests.length; index += 1) {
      const previous = h.model.requests[index - 1].messages;
      const current = h.model.requests[index].messages;
      expect(current.slice(0, previous.length)).toEqual(previous);
    }
  });

  it("compacts once with the model when the budget is reached, keeping the system contract and recent turns", async () => {
    const big = "x".repeat(3_000);
    const replies = [read("a.txt"), read("b.txt"), "Summary: the files are full of x.", read("c.txt"), complete("done")];
    const h = createLoopHarness(replies, { config: { contextChars: 9_000 } });
    for (const name of ["a.txt", "b.txt", "c.txt"]) h.tools.files.set(name, big);
    const session = await h.start("What do the files say?");
    await h.finished(session);
    const compacted = h.events.filter((event) => event.type === "context.built" && event.payload.compacted);
    expect(compacted.length).toBeGreaterThanOrEqual(1);
    const summaryRequest = h.model.requests.find((request) => request.tools.length === 0)!;
    expect(summaryRequest).toBeDefined();
    // A one-off: the model service runs it on a sequence of its own, not the session's warm one.
    expect(summaryRequest.one_off).toBe(true);
    expect(h.model.requests.filter((request) => request !== summaryRequest).every((request) => request.one_off === undefined)).toBe(true);
    const after = h.model.requests.at(-1)!.messages;
    expect(after[0].role).toBe("system");
    expect(after.some((message) => message.content.includes("Summary: the files are full of x."))).toBe(true);
  });
});

describe("person's commands during a run", () => {
  it("a follow-up message enters the next model turn; a mode change injects a notice", async () => {
    const h = createLoopHarness([write("a.txt", "x"), read("a.txt"), complete("done")]);
    const session = await h.start("Create a.txt");
    const requested = await h.waitFor("approval.requested");
    await sendMessage(h.orchestrator, { session, text: "Please also keep it short." });
    await decideApproval(h.orchestrator, { session, approval: (requested.payload as { approval: string }).approval, decision: "approve" });
    await h.finished(session);
    expect(h.model.requests[1].messages.map((message) => message.content).join("\n")).toContain("Please also keep it short.");
    expect(h.events.some((event) => event.type === "message.received")).toBe(true);
  });

  it("a message after the run ends starts a new run of the same session with the history", async () => {
    const h = createLoopHarness([read("a.txt"), complete("a.txt says hi"), read("a.txt"), complete("still hi")]);
    h.tools.files.set("a.txt", "hi");
    const session = await h.start("What does a.txt say?");
    await h.finished(session);
    const firstRun = h.orchestrator.sessions.get(session)!.record.run;
    await changeMode(h.orchestrator, session, "plan");
    const reply = await sendMessage(h.orchestrator, { session, text: "Check it again" });
    expect(reply.run).not.toBe(firstRun);
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ state: "done" });
    const last = h.model.requests[2].messages;
    expect(last.some((message) => message.content.includes("What does a.txt say?"))).toBe(true);
    expect(last.at(-1)!.content).toContain("Check it again");
  });
});

describe("abort while a tool runs", () => {
  it("the abort command ends the run without waiting for the tool", async () => {
    const h = createLoopHarness([run("node long.js")]);
    let release!: () => void;
    h.tools.hold = { command: "node long.js", until: new Promise<void>((resolve) => (release = resolve)) };
    const session = await h.start("Run long.js", { auto_approve: { edits: false, commands: ["node"] } });
    await h.waitFor("tool.started");
    const { abortRun } = await import("../src/commands/abort-run.js");
    const reply = await abortRun(h.orchestrator, session, "too slow");
    expect(reply.state).toBe("aborted");
    const end = await h.finished(session);
    expect(end).toMatchObject({ type: "run.cancelled", payload: { reason: "too slow" } });
    release();
  });
});

describe("event payloads", () => {
  it("write bodies never reach an event: deltas and model.responded carry prose only, args carry size and digest", async () => {
    const body = "SECRET-BODY-7f3a";
    const h = createLoopHarness([`Writing the file now.\n${write("notes.txt", body)}`, run("node check.js"), complete("notes.txt written and checked")]);
    const session = await h.start("Create notes.txt", { auto_approve: { edits: true, commands: ["node"] } });
    await h.finished(session);
    expect(h.tools.files.get("notes.txt")).toContain(body);
    expect(JSON.stringify(h.events)).not.toContain(body);
    const responded = h.events.find((event) => event.type === "model.responded")!;
    expect(responded.payload).toMatchObject({ text: "Writing the file now.", tool_calls: 1 });
    const deltas = h.events
      .filter((event) => event.type === "model.delta")
      .map((event) => (event.payload as { text: string }).text)
      .join("");
    expect(deltas).toContain("Writing the file now.");
    const started = h.events.find((event) => event.type === "tool.started" && (event.payload as { tool: string }).tool === "write_file")!;
    expect((started.payload as { args: unknown }).args).toMatchObject({ path: "notes.txt", content: { bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
  });
});

describe("more guards through the loop", () => {
  it("an identical failed write is blocked until its content changes", async () => {
    const h = createLoopHarness([write("a.json", "{bad"), write("a.json", "{bad"), write("a.json", '{"ok":true}'), read("a.json"), complete("wrote a.json")]);
    h.tools.failWritesContaining = "{bad";
    const session = await h.start("Create a.json", { auto_approve: { edits: true, commands: [] } });
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ state: "done" });
    const bodies = h.tools.execs.filter((exec) => exec.name === "write_file").map((exec) => exec.arguments["content"]);
    expect(bodies.filter((body) => String(body).includes("{bad"))).toHaveLength(1);
    expect(h.model.requests[2].messages.at(-1)!.content).toMatch(/blocked|unchanged|same|identical/i);
  });

  it("documentation or data files are refused as executables", async () => {
    const h = createLoopHarness([run("node data.json"), complete("no")]);
    const session = await h.start("Look at data.json", { auto_approve: { edits: false, commands: ["node"] } });
    await h.finished(session);
    expect(h.tools.execs).toHaveLength(0);
    expect(h.model.requests[1].messages.at(-1)!.content).toMatch(/documentation or data file/);
  });

  it("stall detection: a warning first, then the run ends when it keeps re-reading without progress", async () => {
    const h = createLoopHarness(Array.from({ length: 15 }, () => read("a.txt")));
    h.tools.files.set("a.txt", "same");
    const session = await h.start("What does a.txt say?");
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ error: { code: "STALLED" } });
    expect(h.model.requests.some((request) => /Warning: No file has changed/.test(request.messages.at(-1)!.content))).toBe(true);
  });

  it("a child agent has at most 8 iterations", async () => {
    const replies = [`<spawn_agent>\n<role>explorer</role>\n<task>Look at every file</task>\n</spawn_agent>`];
    for (let index = 0; index < 8; index += 1) replies.push(read(`f${index}.txt`));
    replies.push(complete("the child ran out of iterations"));
    const h = createLoopHarness(replies);
    const session = await h.start("Delegate to an explorer sub-agent: look around");
    await h.finished(session);
    const childEnd = h.events.find((event) => event.type === "run.failed" && event.depth === 1);
    expect(childEnd).toBeUndefined();
    expect(h.events.find((event) => event.type === "agent.completed")?.payload).toMatchObject({ state: "error", result: expect.stringContaining("8 iterations") });
    expect(h.events.filter((event) => event.type === "model.requested" && event.depth === 1)).toHaveLength(8);
  });
});

describe("a writing child agent", () => {
  it("asks the person for its writes (depth 1) and the parent sees its changed files", async () => {
    const h = createLoopHarness([
      `<spawn_agent>\n<role>fixer</role>\n<task>Create fix.txt containing ok</task>\n<write>true</write>\n</spawn_agent>`,
      write("fix.txt", "ok"),
      read("fix.txt"),
      complete("created fix.txt"),
      read("fix.txt"),
      complete("The fixer created fix.txt"),
    ]);
    const session = await h.start("Delegate to a fixer sub-agent: create fix.txt");
    const requested = await h.waitFor("approval.requested");
    expect(requested.depth).toBe(1);
    expect(h.events.find((event) => event.type === "agent.spawned")?.payload).toMatchObject({ write: true });
    await decideApproval(h.orchestrator, { session, approval: (requested.payload as { approval: string }).approval, decision: "approve" });
    const end = await h.finished(session);
    expect(end.payload).toMatchObject({ state: "done", files_changed: ["fix.txt"] });
    expect(h.tools.files.get("fix.txt")).toContain("ok");
    // The child's checkpoints count for the run and point into the parent's transcript (task restore).
    expect((end.payload as { checkpoints: string[] }).checkpoints.length).toBeGreaterThanOrEqual(2);
    expect(h.checkpoints.commits[0]).toMatchObject({ label: "before write_file", message_index: 1 });
  });
});
