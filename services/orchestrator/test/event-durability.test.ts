import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { findNatsServer } from "@aide/runtime";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventStreamName, eventSubjectPrefix, sessionBucketName } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";
import { requestJson } from "../../../tests/helpers/service-process.js";
import { expectContiguous, parkStream, storedRecord, terminalTypes, waitForStored, waitUntil, type StoredEvent } from "./support/stored-events.js";

const skipReason = stackSkipReason();
const kvStream = `KV_${sessionBucketName}`;
const count = (events: StoredEvent[], predicate: (event: StoredEvent) => boolean) => events.filter(predicate).length;

/**
 * Issue 14 item 2 on one real nats-server: an event counts as published only once the stream
 * stored it. The stream is made unavailable for real by pointing it at other subjects (publishes
 * get "no responders", as when its server is away), while the core bus stays up.
 */
describe.skipIf(skipReason !== "")(`events are stored before they count, and session writes wait for the store${skipReason}`, () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  const startWrite = async (s: Stack) => {
    const started = await s.command("start", { task: "Write a.txt", workspace: s.workspace, auto_approve: { edits: false, commands: [] } });
    const session = started.result.session as string;
    const asked = await s.waitFor((e) => e.session === session && e.type === "approval.requested");
    return { session, approval: (asked.payload as { approval: string }).approval };
  };
  // A write, a read that verifies it (the evidence gate asks for one), the completion.
  const script = [{ text: call.write("a.txt", "written once") }, { text: call.read("a.txt") }, { text: call.complete("Wrote a.txt; it reads back as written.") }];

  it("publishes retried while the event stream is away: every event stored once, in order, none lost", async () => {
    stack = await startStack(script);
    const s = stack;
    const { session, approval } = await startWrite(s);
    await parkStream(s.tester, eventStreamName, ["agent.parked.>"]);
    expect(await s.command("decision", { session, approval, decision: "approve" })).toMatchObject({ ok: true });
    // The run goes on (the write happens) while its events wait for the stream.
    await waitUntil(() => existsSync(join(s.workspace, "a.txt")), "the approved write");
    await waitUntil(() => s.services.orchestrator.logs().includes("event not stored yet; retrying"), "a failed publish being retried");
    await parkStream(s.tester, eventStreamName, [`${eventSubjectPrefix}.>`]);

    const events = await waitForStored(s.tester, session, (all) => all.some((e) => terminalTypes.includes(e.type)));
    expectContiguous(events);
    expect(count(events, (e) => e.type === "approval.decided")).toBe(1);
    expect(count(events, (e) => e.type === "tool.started" && e.payload.tool === "write_file")).toBe(1);
    expect(count(events, (e) => e.type === "tool.completed" && e.payload.tool === "write_file")).toBe(1);
    expect(events.at(-1)?.type).toBe("run.completed");
    expect(readFileSync(join(s.workspace, "a.txt"), "utf8")).toContain("written once");
  });

  it("an orchestrator SIGKILLed after its terminal state was written but before the stream took the event: the next one republishes the outbox, once", async () => {
    stack = await startStack(script);
    const s = stack;
    const { session, approval } = await startWrite(s);
    await parkStream(s.tester, eventStreamName, ["agent.parked.>"]);
    expect(await s.command("decision", { session, approval, decision: "approve" })).toMatchObject({ ok: true });
    // The run ended durably (state and its unstored events in the record's outbox)…
    await waitUntil(async () => {
      const record = await storedRecord(s.tester, session);
      return ["done", "unverified"].includes(record?.state) && record.outbox.some((entry: { event: { type: string } }) => entry.event.type === "run.completed");
    }, "a terminal record whose outbox holds run.completed");
    // …and its process dies before any of those events reached the stream.
    await s.services.orchestrator.stop("SIGKILL");
    await parkStream(s.tester, eventStreamName, [`${eventSubjectPrefix}.>`]);
    await s.startOrchestrator();

    const events = await waitForStored(s.tester, session, (all) => all.some((e) => terminalTypes.includes(e.type)));
    expectContiguous(events);
    expect(count(events, (e) => e.type === "approval.decided")).toBe(1);
    expect(count(events, (e) => e.type === "tool.started" && e.payload.tool === "write_file")).toBe(1);
    expect(count(events, (e) => e.type === "run.completed")).toBe(1);
    expect(readFileSync(join(s.workspace, "a.txt"), "utf8")).toContain("written once");
    // Nothing is left live: the emptied outbox was written, and the session is not swept again.
    await waitUntil(async () => (await storedRecord(s.tester, session))?.outbox.length === 0, "the outbox written empty");
    expect((await s.command("status", { session })).result.state).toMatch(/^(done|unverified)$/);
  });

  it("session writes failing past the bound pause the run (event + status); it resumes when the store is back and nothing is re-run", async () => {
    stack = await startStack(script, { orchestratorEnv: { AIDE_LEASE_MS: "1500", AIDE_STORE_PAUSE_AFTER_MS: "1000" } });
    const s = stack;
    const { session, approval } = await startWrite(s);
    await parkStream(s.tester, kvStream, [`$KV.parked.>`]);
    const paused = await s.waitFor((e) => e.session === session && e.type === "run.state" && e.payload.state === "paused");
    expect(paused.payload).toMatchObject({ reason: "store_unavailable" });
    const status = await s.command("status", { session });
    expect(status).toMatchObject({ ok: true, result: { state: "paused", paused: { reason: "store_unavailable" } } });
    // A command that needs the store answers UNAVAILABLE with a retry hint, never INTERNAL.
    const listed = await s.command("sessions", {});
    expect(listed).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", details: { retry_after_ms: expect.any(Number) } } });

    await parkStream(s.tester, kvStream, [`$KV.${sessionBucketName}.>`]);
    const resumed = await s.waitFor((e) => e.session === session && e.seq > paused.seq && e.type === "run.state");
    expect(resumed.payload).toMatchObject({ state: "awaiting_approval" });
    expect((await s.command("status", { session })).result.state).toBe("awaiting_approval");
    expect(await s.command("decision", { session, approval, decision: "approve" })).toMatchObject({ ok: true });

    const events = await waitForStored(s.tester, session, (all) => all.some((e) => terminalTypes.includes(e.type)));
    expectContiguous(events);
    expect(events.at(-1)?.type).toBe("run.completed");
    expect(count(events, (e) => e.type === "tool.started" && e.payload.tool === "write_file")).toBe(1);
    expect(count(events, (e) => e.type === "model.requested")).toBe(3);
  });

  it("a nats-server stopped and restarted with the same store while a run waits: the run pauses, resumes, and completes with nothing re-run", async () => {
    stack = await startStack(script, { orchestratorEnv: { AIDE_LEASE_MS: "1500", AIDE_STORE_PAUSE_AFTER_MS: "1000" } });
    const s = stack;
    const { session, approval } = await startWrite(s);
    await s.bus.server.stop();
    await waitUntil(() => s.services.orchestrator.logs().includes("the run pauses until it can go on"), "the run to pause");
    // The same config and JetStream store: the same server, back.
    const restarted = spawn(findNatsServer()!, ["-c", s.bus.server.configPath], { stdio: "ignore" });
    try {
      const tester = await waitForConnection(() => s.bus.connectAs("tester"));
      const paused = await waitForStored(tester, session, (all) => all.some((e) => e.type === "run.state" && e.payload.state === "paused"));
      const pause = paused.find((e) => e.type === "run.state" && e.payload.state === "paused")!;
      expect(pause.payload).toMatchObject({ reason: "store_unavailable" });
      await waitForStored(tester, session, (all) => all.some((e) => e.seq > pause.seq && e.type === "run.state" && e.payload.state === "awaiting_approval"));
      const decided = await waitForReply(() => requestJson(tester, "agent.cmd.decision", { session, approval, decision: "approve" }));
      expect(decided).toMatchObject({ ok: true });
      const events = await waitForStored(tester, session, (all) => all.some((e) => terminalTypes.includes(e.type)));
      expectContiguous(events);
      expect(events.at(-1)?.type).toBe("run.completed");
      expect(count(events, (e) => e.type === "tool.started" && e.payload.tool === "write_file")).toBe(1);
      expect(count(events, (e) => e.type === "approval.requested")).toBe(1);
    } finally {
      restarted.kill("SIGKILL");
    }
  });
});

async function waitForConnection<T>(connect: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await connect();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Asks again while the orchestrator is still reconnecting (no responders, timeout). */
async function waitForReply(ask: () => Promise<any>): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
