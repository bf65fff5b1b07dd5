import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { truncationMarker } from "../src/mark-truncated-diff.js";
import { fakeCheckpoint, fakeCheckpointCut, fakeDiff } from "./fake-orchestrator.js";
import { startHarness, until, type Harness } from "./gateway-harness.js";

let h: Harness;
let session: string;
const json = { "content-type": "application/json" };

beforeAll(async () => {
  h = await startHarness();
  const started = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers(json), payload: { task: "update the README", workspace: "/tmp/ws" } });
  expect(started.statusCode).toBe(200);
  session = started.json().session;
  await until(() => h.orchestrator.sessions.get(session)?.state === "awaiting_approval", "the approval");
});
afterAll(async () => h?.stop());

const inject = (method: "GET" | "POST", url: string, payload?: unknown) =>
  h.gateway.app.inject({ method, url, headers: h.headers(payload === undefined ? {} : json), ...(payload === undefined ? {} : { payload: payload as object }) });

describe("agent routes", () => {
  it("POST /api/agent/start: good body, validation failures", async () => {
    const good = await inject("POST", "/api/agent/start", { task: "t", workspace: "/tmp/ws", mode: "plan" });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toMatchObject({ state: "running" });
    for (const bad of [{}, { task: "", workspace: "/w" }, { task: "t" }, { task: "t", workspace: "/w", mode: "yolo" }, { task: "t", workspace: "/w", session: "bad id!" }]) {
      const response = await inject("POST", "/api/agent/start", bad);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe("VALIDATION");
    }
    const badJson = await h.gateway.app.inject({ method: "POST", url: "/api/agent/start", headers: h.headers(json), payload: "{not json" });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error.code).toBe("BAD_JSON");
  });

  it("GET /api/agent/status: snapshot, missing id, unknown session", async () => {
    const good = await inject("GET", `/api/agent/status?id=${session}`);
    expect(good.statusCode).toBe(200);
    expect(good.json()).toMatchObject({ id: session, state: "awaiting_approval", workspace: "/tmp/ws" });
    expect(good.json().approvals_pending).toHaveLength(1);
    expect((await inject("GET", "/api/agent/status")).json().error.code).toBe("VALIDATION");
    expect((await inject("GET", "/api/agent/status?id=a.b")).statusCode).toBe(400);
    const missing = await inject("GET", "/api/agent/status?id=nosuch");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: "SESSION_NOT_FOUND", message: "No session with id nosuch" } });
  });

  it("POST /api/agent/decision: validation, unknown approval, unknown session", async () => {
    expect((await inject("POST", "/api/agent/decision", { session, approval: "x", decision: "maybe" })).json().error.code).toBe("VALIDATION");
    const unknown = await inject("POST", "/api/agent/decision", { session, approval: "nope", decision: "approve" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("APPROVAL_NOT_FOUND");
    expect((await inject("POST", "/api/agent/decision", { session: "nosuch", approval: "a", decision: "approve" })).statusCode).toBe(404);
  });

  it("POST /api/agent/message: already running, validation", async () => {
    const busy = await inject("POST", "/api/agent/message", { session, text: "more" });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.code).toBe("ALREADY_RUNNING");
    expect((await inject("POST", "/api/agent/message", { session, text: "" })).json().error.code).toBe("VALIDATION");
  });

  it("POST /api/agent/mode", async () => {
    expect((await inject("POST", "/api/agent/mode", { session, mode: "plan" })).json()).toEqual({ mode: "plan", seq: expect.any(Number) });
    expect((await inject("POST", "/api/agent/mode", { session, mode: "x" })).json().error.code).toBe("VALIDATION");
    expect((await inject("POST", "/api/agent/mode", { session: "nosuch", mode: "act" })).json().error.code).toBe("SESSION_NOT_FOUND");
  });

  it("GET /api/agent/sessions: coerces the limit, rejects a bad one", async () => {
    const good = await inject("GET", "/api/agent/sessions?limit=5");
    expect(good.statusCode).toBe(200);
    expect(good.json().sessions.map((s: { id: string }) => s.id)).toContain(session);
    expect((await inject("GET", "/api/agent/sessions?limit=0")).json().error.code).toBe("VALIDATION");
    expect((await inject("GET", "/api/agent/sessions?limit=abc")).json().error.code).toBe("VALIDATION");
  });

  it("GET /api/agent/sessions: the filters and the page reach the orchestrator typed; bad ones are refused", async () => {
    const good = await inject("GET", "/api/agent/sessions?state=error&workspace=%2Ftmp%2Fws&query=README&offset=20&limit=10");
    expect(good.statusCode).toBe(200);
    expect(h.orchestrator.sessionQueries.at(-1)).toEqual({ state: "error", workspace: "/tmp/ws", query: "README", offset: 20, limit: 10 });
    for (const bad of ["state=finished", "offset=-1", "offset=x", "query=", `query=${"x".repeat(201)}`]) {
      const response = await inject("GET", `/api/agent/sessions?${bad}`);
      expect(response.statusCode, bad).toBe(400);
      expect(response.json().error.code).toBe("VALIDATION");
    }
  });

  it("POST /api/agent/abort: aborts, then NOT_RUNNING", async () => {
    const other = (await inject("POST", "/api/agent/start", { task: "t", workspace: "/tmp/ws" })).json().session;
    expect((await inject("POST", "/api/agent/abort", { session: other, reason: "test" })).json()).toEqual({ state: "aborted" });
    const again = await inject("POST", "/api/agent/abort", { session: other });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe("NOT_RUNNING");
    expect((await inject("POST", "/api/agent/abort", {})).json().error.code).toBe("VALIDATION");
  });
});

describe("checkpoint routes", () => {
  it("GET /api/checkpoints lists through the session's workspace", async () => {
    const good = await inject("GET", `/api/checkpoints?session=${session}`);
    expect(good.statusCode).toBe(200);
    expect(good.json().checkpoints[0].id).toBe(fakeCheckpoint);
    expect((await inject("GET", "/api/checkpoints")).json().error.code).toBe("VALIDATION");
    expect((await inject("GET", "/api/checkpoints?session=nosuch")).json().error.code).toBe("SESSION_NOT_FOUND");
  });

  it("GET /api/checkpoints/diff", async () => {
    const good = await inject("GET", `/api/checkpoints/diff?session=${session}&from=${fakeCheckpoint}`);
    expect(good.json().files[0]).toMatchObject({ path: "README.md", diff: fakeDiff });
    expect((await inject("GET", `/api/checkpoints/diff?session=${session}&from=abc`)).json().error.code).toBe("VALIDATION");
  });

  it("GET /api/checkpoints/diff: a cut diff ends on its last whole line and a marker line; the flags and the omitted count stay", async () => {
    const cut = (await inject("GET", `/api/checkpoints/diff?session=${session}&from=${fakeCheckpointCut}&to=${fakeCheckpoint}`)).json();
    expect(cut.omitted).toBe(2);
    expect(cut.files[0]).toEqual({ path: "big.txt", status: "added", binary: false, truncated: true, diff: `--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,3 @@\n+line 1\n+line 2\n${truncationMarker}\n` });
    expect(truncationMarker.startsWith("\\ ")).toBe(true);
    expect(cut.files[1]).toEqual({ path: "huge.bin.txt", status: "modified", binary: false, truncated: true });
  });

  it("POST /api/checkpoints/restore: confirm without preview is refused; preview then confirm applies", async () => {
    const early = await inject("POST", "/api/checkpoints/restore", { session, checkpoint: fakeCheckpoint, confirm: true });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.code).toBe("PREVIEW_REQUIRED");
    const preview = await inject("POST", "/api/checkpoints/restore", { session, checkpoint: fakeCheckpoint });
    expect(preview.json()).toMatchObject({ applied: false, plan: { modified: ["README.md"] } });
    const confirm = await inject("POST", "/api/checkpoints/restore", { session, checkpoint: fakeCheckpoint, confirm: true });
    expect(confirm.json()).toMatchObject({ applied: true, truncated_messages: 2 });
    expect(h.orchestrator.restores.filter((r) => r.session === session).map((r) => r.dry_run)).toEqual([true, false]);
    expect((await inject("POST", "/api/checkpoints/restore", { session, checkpoint: "HEAD" })).json().error.code).toBe("VALIDATION");
  });
});

describe("system routes", () => {
  it("GET /api/models answers UNAVAILABLE when the model service is down… or the list", async () => {
    const response = await inject("GET", "/api/models");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ models: [], default: "stories260K" });
  });

  it("GET /api/health reports which services answer", async () => {
    const response = await inject("GET", "/api/health");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ ok: false, services: { gateway: true, orchestrator: false, model: false } });
  });

  it("a reply that breaks the contract: INTERNAL (500), no detail leaked beyond the envelope", async () => {
    const response = await inject("GET", "/api/agent/status?id=broken");
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe("INTERNAL");
    expect(Object.keys(response.json())).toEqual(["error"]);
    expect(response.body).not.toMatch(/at .*\.js:\d+/);
  });

  it("unknown route: NOT_FOUND envelope", async () => {
    const response = await inject("GET", "/api/nothing");
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe("NOT_FOUND");
  });

  it("a service that does not answer: UNAVAILABLE (503)", async () => {
    await h.orchestrator.stop();
    const response = await inject("GET", `/api/agent/status?id=${session}`);
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe("UNAVAILABLE");
  });
});
