import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatewayOnStack, type GatewayOnStack } from "./support/gateway-on-stack.js";
import { call } from "./support/scripted-calls.js";
import { built, stackSkipReason, startStack, type Stack } from "./support/stack.js";
import { storedEvents } from "./support/stored-events.js";

const skipReason = stackSkipReason() || (built("gateway") ? "" : " [SKIPPED: the gateway is not built; run npx tsc -b]");

/**
 * Issue 18, the panel's server side over the real processes (orchestrator, model, tools,
 * checkpoints, gateway): two checkpoints compared with each other and with the working tree, the
 * finished session in the list with its outcome, and the run's costs equal to its stored events.
 */
describe.skipIf(skipReason !== "")(`the panel's views through the gateway${skipReason}`, () => {
  let stack: Stack;
  let gateway: GatewayOnStack;
  let session = "";
  const get = (path: string) => gateway.call("GET", path);

  beforeAll(async () => {
    stack = await startStack(
      [
        { text: call.write("notes/first.txt", "one") },
        { text: call.write("notes/second.txt", "two") },
        { text: call.read("notes/second.txt") },
        { text: call.complete("Wrote notes/first.txt and notes/second.txt") },
      ],
      { orchestratorEnv: { AIDE_UNSANDBOXED_SERVICES: "1" } },
    );
    gateway = await startGatewayOnStack(stack);
    const started = await stack.command("start", { task: "Create the two notes\n(one and two)", workspace: stack.workspace, auto_approve: { edits: true, commands: [] } });
    session = started.result.session;
    await stack.terminal(session, undefined, 90_000);
  }, 150_000);

  afterAll(async () => {
    await gateway?.process.stop();
    await stack?.stop();
  });

  it("compares two checkpoints, and a checkpoint with the working tree", async () => {
    const list = await get(`/api/checkpoints?session=${session}`);
    expect(list.status).toBe(200);
    const ids = (list.body.checkpoints as Array<{ id: string }>).map((checkpoint) => checkpoint.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    // Taken before each write: the first before notes/first.txt existed, the second before notes/second.txt.
    const [first, second] = ids;
    const between = await get(`/api/checkpoints/diff?session=${session}&from=${first}&to=${second}`);
    expect(between.status).toBe(200);
    expect(between.body.files.map((file: { path: string }) => file.path)).toEqual(["notes/first.txt"]);
    expect(between.body.files[0]).toMatchObject({ status: "added", binary: false });
    expect(between.body.files[0].diff).toContain("+one");
    const toWorkingTree = await get(`/api/checkpoints/diff?session=${session}&from=${first}`);
    expect(toWorkingTree.body.files.map((file: { path: string }) => file.path).sort()).toEqual(["notes/first.txt", "notes/second.txt"]);
    const backwards = await get(`/api/checkpoints/diff?session=${session}&from=${second}&to=${first}`);
    expect(backwards.body.files[0]).toMatchObject({ path: "notes/first.txt", status: "deleted" });
  });

  it("lists the finished session with its outcome, model, times and files", async () => {
    const listed = await get(`/api/agent/sessions?query=${encodeURIComponent("two notes")}&state=done`);
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
    expect(listed.body.sessions[0]).toMatchObject({
      id: session,
      task_title: "Create the two notes",
      model: "s1",
      outcome: { state: "done", result: "Wrote notes/first.txt and notes/second.txt" },
      files_changed: expect.arrayContaining(["notes/first.txt", "notes/second.txt"]),
    });
    expect(listed.body.sessions[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect((await get(`/api/agent/sessions?state=error`)).body).toEqual({ sessions: [], total: 0 });
  });

  it("the run's costs are the sums over its stored events", async () => {
    const costs = await get(`/api/agent/costs?session=${session}`);
    expect(costs.status).toBe(200);
    const events = await storedEvents(stack.tester, session);
    const responded = events.filter((event) => event.type === "model.responded");
    const tools = events.filter((event) => event.type === "tool.completed");
    const sum = (list: typeof events, field: string) => list.reduce((total, event) => total + (event.payload[field] as number), 0);
    expect(responded.length).toBe(4);
    expect(costs.body.last_seq).toBe(events.at(-1)!.seq);
    expect(costs.body.totals).toEqual({
      turns: responded.length,
      prompt_tokens: sum(responded, "prompt_tokens"),
      completion_tokens: sum(responded, "completion_tokens"),
      cached_prompt_tokens: responded.reduce((total, event) => total + ((event.payload.cached_prompt_tokens as number | undefined) ?? 0), 0),
      model_ms: sum(responded, "duration_ms"),
      tool_calls: tools.length,
      tool_ms: sum(tools, "duration_ms"),
    });
    expect(costs.body.turns.map((turn: { prompt_tokens: number }) => turn.prompt_tokens)).toEqual(responded.map((event) => event.payload.prompt_tokens));
    expect(costs.body.turns.map((turn: { model?: string }) => turn.model)).toEqual(responded.map(() => "s1"));
  });
});
