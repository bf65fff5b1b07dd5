import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { startFakeOrchestrator, type FakeOrchestrator } from "./fake-orchestrator.js";
import { until } from "./gateway-harness.js";

const clients = 400;
/** Sessions whose status lookup never succeeds (the orchestrator is gone for them). */
const silent = new Set<string>();
const token = "0123456789abcdef0123456789abcdef";

/**
 * Issue 20: under a flood of reconnecting WebSocket clients the gateway re-sent events without the
 * pending-approval frame when its status lookup failed. The real gateway process, a real bus, and
 * an orchestrator stand-in that answers every third status lookup with BUSY (an orchestrator under
 * load, made deterministic); every client of the session must still get `approval.pending`.
 */
describe("a flood of reconnecting clients of a session with a pending approval", () => {
  let bus: TestBus;
  let tester: NatsConnection;
  let orchestrator: FakeOrchestrator;
  let gateway: ServiceProcess;
  let port: string;
  beforeAll(async () => {
    bus = await startTestBus();
    tester = await bus.connectAs("tester");
    orchestrator = await startFakeOrchestrator(tester, { statusBusy: (count, session) => silent.has(session) || count % 3 === 0 });
    const dir = mkdtempSync(join(tmpdir(), "aide-gw-flood-"));
    const tokenFile = join(dir, "gateway.token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    gateway = await startServiceProcess(bus, "gateway", { env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_GATEWAY_RATE_LIMIT: "100000" } });
    port = await until(() => /"port":(\d+)/.exec(gateway.logs())?.[1], "the port in the log");
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await orchestrator?.stop();
    await bus?.stop();
  });

  /** One client reconnecting with `since`: the frames it got up to `ready`. */
  function reconnect(session: string, since: number): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const types: string[] = [];
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/events?session=${session}&since=${since}`, { headers: { authorization: `Bearer ${token}` } });
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data)) as { type: string; event?: { payload?: { approval?: string } } };
        types.push(frame.type === "approval.pending" ? `pending:${frame.event?.payload?.approval}` : frame.type);
        if (frame.type === "ready" || frame.type === "error") ws.close();
      });
      ws.on("close", () => resolve(types));
      ws.on("error", reject);
    });
  }

  async function sessionWithPendingApproval(): Promise<{ session: string; approval: string; since: number }> {
    const started = await fetch(`http://127.0.0.1:${port}/api/agent/start`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ task: "t", workspace: "/tmp/ws" }),
    });
    const session = ((await started.json()) as { session: string }).session;
    const snapshot = await until(
      () => {
        const current = orchestrator.sessions.get(session);
        return current && current.approvals_pending.length === 1 && current.last_seq >= 6 ? current : undefined;
      },
      "the pending approval",
      30_000,
    );
    // Clients that already had every event: the approval is at or before their `since`.
    for (let index = 0; index < 5; index += 1) await orchestrator.publish(session, "model.delta", { request_id: "m2", text: `more ${index}` });
    return { session, approval: snapshot.approvals_pending[0].id, since: orchestrator.sessions.get(session)!.last_seq };
  }

  it("with no status answer at all, the pending approval comes from the stream", async () => {
    const { session, approval, since } = await sessionWithPendingApproval();
    silent.add(session);
    const results = await Promise.all(Array.from({ length: 20 }, () => reconnect(session, since)));
    for (const types of results) expect(types).toEqual([`pending:${approval}`, "ready"]);
  }, 120_000);

  it(`every one of ${clients} clients, twice over, receives the pending approval before ready`, async () => {
    const { session, approval, since } = await sessionWithPendingApproval();
    for (let round = 0; round < 2; round += 1) {
      const results = await Promise.all(Array.from({ length: clients }, () => reconnect(session, since)));
      const missing = results.filter((types) => !types.includes(`pending:${approval}`));
      expect(missing.length, `${missing.length} of ${clients} clients got no approval.pending (round ${round + 1}): ${JSON.stringify(missing.slice(0, 3))}`).toBe(0);
      for (const types of results) expect(types.indexOf(`pending:${approval}`)).toBeLessThan(types.indexOf("ready"));
    }
  }, 300_000);
});
