import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/** The model a start names is checked against the model service's list before a session exists. */
describe.skipIf(skipReason !== "")(`the start command and the model registry (real processes)${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.complete("nothing to do") }], { orchestratorEnv: { AIDE_UNSANDBOXED_SERVICES: "1" } });
  });
  afterAll(async () => stack?.stop());

  it("refuses an unknown model before the session starts, listing the ids", async () => {
    const refused = await stack.command("start", { task: "Say hello", workspace: stack.workspace, model: "gpt-17" });
    expect(refused).toMatchObject({ ok: false, error: { code: "MODEL_NOT_FOUND" } });
    expect(refused.error.message).toContain("No model with id gpt-17; known ids: s1");
    expect(stack.events.filter((event) => event.type === "run.created")).toEqual([]);
    expect((await stack.command("sessions", {})).result.sessions).toEqual([]);
  });

  it("a known model starts; the context step reports the tier and window it built for", async () => {
    const started = await stack.command("start", { task: "Say hello", workspace: stack.workspace, model: "s1" });
    expect(started.ok, JSON.stringify(started.error)).toBe(true);
    const built = await stack.waitFor((event) => event.session === started.result.session && event.type === "context.built");
    // A scripted transcript has no window of its own: the full tier, the listed budget.
    expect(built.payload).toMatchObject({ tier: "full", window_tokens: 4096 });
    await stack.terminal(started.result.session);
  });

  it("with no model at all, the start is refused with what to do", async () => {
    // The registry becomes empty without a restart (no models.json, no GGUF, discovery off).
    const reloaded = await stack.tester.request("agent.model.reload", new TextEncoder().encode(JSON.stringify({ document: null })), { timeout: 10_000 });
    expect(JSON.parse(new TextDecoder().decode(reloaded.data))).toMatchObject({ ok: true, result: { models: [] } });
    const refused = await stack.command("start", { task: "Say hello", workspace: stack.workspace });
    expect(refused).toMatchObject({ ok: false, error: { code: "NO_MODEL" } });
    for (const needle of ["drop a GGUF file into", "start Ollama", "aide models add"]) expect(refused.error.message).toContain(needle);
  });
});
