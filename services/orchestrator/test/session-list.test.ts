import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/**
 * `agent.cmd.sessions` and `agent.cmd.status` of the real orchestrator: each finished session
 * says how its run ended (as its terminal event did), when it ran, its model and the files it
 * changed; the list filters by state, workspace and text, and pages newest first.
 */
describe.skipIf(skipReason !== "")(`the session list's fields and filters${skipReason}`, () => {
  let stack: Stack;
  let done = "";
  let failed = "";
  let unverified = "";
  beforeAll(async () => {
    stack = await startStack([{ text: call.write("notes/a.txt", "hello") }, { text: call.read("notes/a.txt") }, { text: call.complete("wrote notes/a.txt") }], {
      orchestratorEnv: { AIDE_UNSANDBOXED_SERVICES: "1" },
      models: {
        looper: [{ text: call.read("package.json") }, { text: call.read("package.json") }],
        claimer: [{ text: call.complete("Done") }, { text: call.complete("Really done") }, { text: call.complete("Trust me") }],
      },
    });
    const claimed = await stack.command("start", { task: "Create hello.txt containing hi", workspace: stack.workspace, model: "claimer" });
    unverified = claimed.result.session;
    await stack.terminal(unverified);
    const first = await stack.command("start", {
      task: "Create notes/a.txt\nwith the word hello in it, and nothing else",
      workspace: stack.workspace,
      auto_approve: { edits: true, commands: [] },
    });
    done = first.result.session;
    await stack.terminal(done);
    const second = await stack.command("start", { task: "Read package.json forever", workspace: stack.workspace, model: "looper", max_iterations: 1 });
    failed = second.result.session;
    await stack.terminal(failed);
  }, 90_000);
  afterAll(async () => stack?.stop());

  it("a finished run: outcome, evidence, files, model, times, the task's first line", async () => {
    const end = stack.events.find((e) => e.session === done && e.type === "run.completed");
    if (end?.type !== "run.completed") throw new Error("no run.completed");
    const status = (await stack.command("status", { session: done })).result;
    expect(status).toMatchObject({
      task_title: "Create notes/a.txt",
      model: "s1",
      outcome: { state: end.payload.state, result: end.payload.result },
      files_changed: end.payload.files_changed,
    });
    expect(status.files_changed).toContain("notes/a.txt");
    expect(status.evidence ?? []).toEqual(end.payload.evidence);
    expect(Date.parse(status.run_ended_at)).toBeGreaterThanOrEqual(Date.parse(status.run_started_at));
    expect(status.duration_ms).toBe(Date.parse(status.run_ended_at) - Date.parse(status.run_started_at));
  });

  it("a failed run: the code and message of its run.failed", async () => {
    const end = stack.events.find((e) => e.session === failed && e.type === "run.failed");
    if (end?.type !== "run.failed") throw new Error("no run.failed");
    expect(end.payload.error.code).toBe("ITERATION_LIMIT");
    const status = (await stack.command("status", { session: failed })).result;
    expect(status).toMatchObject({ state: "error", model: "looper", outcome: { state: "error", error: end.payload.error, result: end.payload.error.message }, files_changed: [] });
    expect(status.evidence).toBeUndefined();
  });

  it("an unverified run: what the evidence gate found missing, as completion.unverified said", async () => {
    const verdict = stack.events.find((e) => e.session === unverified && e.type === "completion.unverified");
    if (verdict?.type !== "completion.unverified") throw new Error("no completion.unverified");
    expect(verdict.payload.missing.length).toBeGreaterThan(0);
    const status = (await stack.command("status", { session: unverified })).result;
    expect(status).toMatchObject({ state: "unverified", model: "claimer", outcome: { state: "unverified", missing: verdict.payload.missing, result: verdict.payload.result } });
  });

  it("filters by state, workspace and text; pages newest first with the total", async () => {
    const all = (await stack.command("sessions", {})).result;
    expect(all.sessions.map((s: { id: string }) => s.id)).toEqual([failed, done, unverified]);
    expect(all.total).toBe(3);
    const ids = async (body: unknown) => ((await stack.command("sessions", body)).result.sessions as Array<{ id: string }>).map((s) => s.id);
    expect(await ids({ state: "error" })).toEqual([failed]);
    expect(await ids({ state: "running" })).toEqual([]);
    expect(await ids({ workspace: stack.workspace })).toEqual([failed, done, unverified]);
    expect(await ids({ state: "unverified" })).toEqual([unverified]);
    expect(await ids({ workspace: "/elsewhere" })).toEqual([]);
    expect(await ids({ query: "NOTES/A" })).toEqual([done]);
    expect(await ids({ query: failed.slice(0, 8) })).toEqual([failed]);
    const page2 = (await stack.command("sessions", { limit: 1, offset: 1 })).result;
    expect(page2).toMatchObject({ total: 3, sessions: [{ id: done }] });
    expect(page2.sessions).toHaveLength(1);
    expect((await stack.command("sessions", { offset: 5 })).result).toEqual({ sessions: [], total: 3 });
    expect(await stack.command("sessions", { state: "finished" })).toMatchObject({ ok: false, error: { code: "VALIDATION" } });
    expect(stack.invalidEvents).toEqual([]);
  });
});
