import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./gateway-harness.js";

let h: Harness;
const json = { "content-type": "application/json" };
const get = (url: string) => h.gateway.app.inject({ method: "GET", url, headers: h.headers() });

async function startSession(): Promise<string> {
  const started = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers(json), payload: { task: "costs", workspace: "/tmp/ws" } });
  return started.json().session;
}

beforeAll(async () => {
  h = await startHarness({ approvalPauses: false });
});
afterAll(async () => h?.stop());

/** `GET /api/agent/costs` over the real event stream: the figures are the sums of the events published. */
describe("GET /api/agent/costs", () => {
  it("per turn, per run and in all: tokens, cache reuse, model time and tool time equal the events'", async () => {
    const session = await startSession();
    const snapshot = h.orchestrator.sessions.get(session)!;
    const turn = async (request: string, iteration: number, figures: Record<string, number | string>, toolMs: number[]) => {
      await h.orchestrator.publish(session, "model.requested", { request_id: request, model: "m", iteration });
      // Deltas between (more than one pull's worth in all) are read and skipped.
      for (let index = 0; index < 300; index += 1) await h.orchestrator.publish(session, "model.delta", { request_id: request, text: "x" });
      await h.orchestrator.publish(session, "model.responded", { request_id: request, text: "", tool_calls: toolMs.length, finish_reason: "stop", ...figures });
      for (const [index, ms] of toolMs.entries()) {
        await h.orchestrator.publish(session, "tool.completed", { call_id: `${request}-${index}`, tool: "read_file", args: {}, is_error: false, summary: "ok", duration_ms: ms, metadata: {} });
      }
    };
    await turn("q1", 1, { prompt_tokens: 1200, completion_tokens: 80, duration_ms: 950.5, cached_prompt_tokens: 0, model: "luna" }, [12, 30.25]);
    await turn("q2", 2, { prompt_tokens: 1500, completion_tokens: 40, duration_ms: 400, cached_prompt_tokens: 1180, model: "luna" }, [7]);
    snapshot.run = "r-second";
    await turn("q3", 1, { prompt_tokens: 900, completion_tokens: 20, duration_ms: 100 }, []);
    await h.orchestrator.publish(session, "tool.completed", { call_id: "late", tool: "run_command", args: {}, is_error: true, summary: "exit 1", duration_ms: 500, metadata: {} });

    const response = await get(`/api/agent/costs?session=${session}`);
    expect(response.statusCode).toBe(200);
    const costs = response.json();
    expect(costs.last_seq).toBe(snapshot.last_seq);
    expect(costs.turns).toEqual([
      expect.objectContaining({ request_id: "q1", iteration: 1, model: "luna", prompt_tokens: 1200, completion_tokens: 80, cached_prompt_tokens: 0, model_ms: 950.5, tool_calls: 2, tool_ms: 42.25 }),
      expect.objectContaining({ request_id: "q2", iteration: 2, prompt_tokens: 1500, completion_tokens: 40, cached_prompt_tokens: 1180, model_ms: 400, tool_calls: 1, tool_ms: 7 }),
      expect.objectContaining({ request_id: "q3", run: "r-second", iteration: 1, prompt_tokens: 900, completion_tokens: 20, model_ms: 100, tool_calls: 1, tool_ms: 500 }),
    ]);
    expect(costs.turns[2].cached_prompt_tokens).toBeUndefined();
    const firstRun = costs.runs.find((run: { run: string }) => run.run !== "r-second");
    expect(firstRun).toMatchObject({ turns: 2, prompt_tokens: 2700, completion_tokens: 120, cached_prompt_tokens: 1180, model_ms: 1350.5, tool_calls: 3, tool_ms: 49.25 });
    expect(costs.runs.find((run: { run: string }) => run.run === "r-second")).toMatchObject({ turns: 1, prompt_tokens: 900, tool_calls: 1, tool_ms: 500 });
    expect(costs.totals).toEqual({ turns: 3, prompt_tokens: 3600, completion_tokens: 140, cached_prompt_tokens: 1180, model_ms: 1450.5, tool_calls: 4, tool_ms: 549.25 });
  });

  it("a session without events: zeros; unknown session and bad ids are refused", async () => {
    const session = await startSession();
    const empty = await get(`/api/agent/costs?session=${session}`);
    expect(empty.json()).toEqual({
      session,
      last_seq: 0,
      turns: [],
      runs: [],
      totals: { turns: 0, prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, model_ms: 0, tool_calls: 0, tool_ms: 0 },
    });
    // The status names events the stream does not hold (not yet published, or gone): the figures cover what it holds, at once.
    h.orchestrator.sessions.get(session)!.last_seq = 7;
    expect((await get(`/api/agent/costs?session=${session}`)).json()).toMatchObject({ last_seq: 0, turns: [], totals: { turns: 0 } });
    const missing = await get("/api/agent/costs?session=nosuch");
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe("SESSION_NOT_FOUND");
    expect((await get("/api/agent/costs")).json().error.code).toBe("VALIDATION");
    expect((await get("/api/agent/costs?session=a.b")).json().error.code).toBe("VALIDATION");
  });
});
