import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Msg, NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, startServiceProcess } from "../../../tests/helpers/service-process.js";
import { built } from "./support/stack.js";

const skipReason = built("orchestrator") ? "" : " [SKIPPED: the orchestrator is not built; run npx tsc -b]";

/**
 * Issue 14 item 5, for a bus service: SIGTERM to the orchestrator process while 20
 * `agent.cmd.start` requests wait on downstream calls that nobody answers (a test responder holds
 * every tools/model/checkpoints request). Each start gets an answer within the shutdown grace
 * (UNAVAILABLE, shutting down, retryable) instead of a timeout, and the process exits 0.
 */
describe.skipIf(skipReason !== "")(`graceful shutdown of a bus service${skipReason}`, () => {
  let bus: TestBus;
  let tester: NatsConnection;
  const dir = mkdtempSync(join(tmpdir(), "aide-orch-stop-"));
  const held: Msg[] = [];
  beforeAll(async () => {
    bus = await startTestBus();
    tester = await bus.connectAs("tester");
    for (const subject of ["agent.tools.>", "agent.model.>", "agent.checkpoints.>"]) tester.subscribe(subject, { callback: (_error, message) => held.push(message) });
    await tester.flush();
  });
  afterAll(async () => {
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers every in-flight start and exits 0", async () => {
    const workspace = join(dir, "workspace");
    mkdirSync(workspace);
    const orchestrator = await startServiceProcess(bus, "orchestrator", {
      env: { AIDE_WORKSPACE_ROOTS: dir, AIDE_SHUTDOWN_GRACE_MS: "1000", AIDE_LOG_LEVEL: "info" },
      pinger: tester,
      readyTimeoutMs: 60_000,
    });
    const exited = new Promise<number | null>((resolve) => orchestrator.child.once("exit", (code) => resolve(code)));
    const starts = Array.from({ length: 20 }, (_, index) =>
      requestJson(tester, "agent.cmd.start", { task: `task ${index}`, workspace, allow_concurrent: true }, 60_000).catch((error: Error) => ({
        ok: false,
        error: { code: "NO_ANSWER", message: error.message },
      })),
    );
    for (let tries = 0; held.length < 20 && tries < 2400; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(held.length).toBeGreaterThanOrEqual(20);

    orchestrator.child.kill("SIGTERM");
    const answers = await Promise.all(starts);
    const code = await exited;
    expect(answers.filter((answer) => answer.error?.code === "NO_ANSWER")).toEqual([]);
    for (const answer of answers) {
      expect(answer.ok).toBe(false);
      expect(answer.error.code).toBe("UNAVAILABLE");
      expect(answer.error.message).toMatch(/shutting down/);
      expect(answer.error.details).toMatchObject({ reason: "shutting_down" });
    }
    expect(code).toBe(0);
  }, 120_000);
});
