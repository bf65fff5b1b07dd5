import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { CheckpointListReplySchema, subjects } from "@aide/contracts";
import { busCheckpointsPort, busToolsPort } from "../src/bus/bus-service-ports.js";
import { createGatewayBus } from "../../gateway/src/gateway-bus.js";
import { stackSkipReason } from "./support/stack.js";

const skipReason = stackSkipReason();

/**
 * Issue 14 item 4, workspace affinity: two tools services with disjoint roots on one bus (as on two
 * workspace hosts, no shared filesystem). Each request reaches the instance that has the
 * workspace; a workspace nobody serves is refused with WORKSPACE_NOT_SERVED naming the served roots.
 */
describe.skipIf(skipReason !== "")(`two tools services with disjoint workspace roots${skipReason}`, () => {
  let bus: TestBus;
  let dir: string;
  let roots: { a: string; b: string; none: string };
  let orchestratorConnection: NatsConnection;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "aide-affinity-")));
    roots = { a: join(dir, "host-a"), b: join(dir, "host-b"), none: join(dir, "host-c") };
    for (const [name, root] of Object.entries(roots)) {
      mkdirSync(join(root, "ws"), { recursive: true });
      writeFileSync(join(root, "ws", "marker.txt"), `served by ${name}\n`);
    }
    bus = await startTestBus();
    const tester = await bus.connectAs("tester");
    for (const root of [roots.a, roots.b]) {
      const env = { AIDE_WORKSPACE_ROOTS: root, AIDE_UNSAFE_NO_SANDBOX: "1", AIDE_LOG_LEVEL: "info", AIDE_HOME: join(root, ".home") };
      processes.push(await startServiceProcess(bus, "tools", { env, pinger: tester }));
      processes.push(await startServiceProcess(bus, "checkpoints", { env, pinger: tester }));
    }
    // A second instance is "up" once the first answers a ping: wait until each announces itself.
    for (let attempt = 0; attempt < 200; attempt += 1) {
      if (processes.every((process) => /tools service started|checkpoints ready/.test(process.logs()))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    processes.push(await startServiceProcess(bus, "orchestrator", { env: { AIDE_WORKSPACE_ROOTS: dir, AIDE_LOG_LEVEL: "info" }, pinger: tester }));
    orchestratorConnection = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    for (const process of processes) await process.stop();
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const timeouts = { modelTimeoutMs: 30_000, toolTimeoutMs: 30_000, checkpointTimeoutMs: 30_000 };

  it("sends each workspace's calls to the instance that serves it", async () => {
    const tools = busToolsPort(orchestratorConnection, timeouts);
    for (let round = 0; round < 4; round += 1) {
      for (const name of ["a", "b"] as const) {
        const result = await tools.exec(`s${name}${round}`, join(roots[name], "ws"), { id: `c${name}${round}`, name: "read_file", arguments: { path: "marker.txt" } }, { network: false });
        expect(result.is_error, result.output).toBe(false);
        expect(result.output).toContain(`served by ${name}`);
      }
    }
  });

  it("takes each workspace's checkpoints on the host that has it, and the gateway lists them there", async () => {
    const checkpoints = busCheckpointsPort(orchestratorConnection, timeouts);
    const gateway = createGatewayBus(await bus.connectAs("gateway"));
    for (const name of ["a", "b"] as const) {
      const workspace = join(roots[name], "ws");
      const ids: string[] = [];
      for (let round = 0; round < 3; round += 1) ids.push((await checkpoints.commit({ workspace, session: `cp${name}`, label: `round ${round}` })).id);
      const listed = await gateway.request(subjects.checkpoints.list, { workspace, session: `cp${name}` }, CheckpointListReplySchema);
      expect(listed.checkpoints.map((checkpoint) => checkpoint.id).sort()).toEqual([...ids].sort());
    }
    await expect(checkpoints.commit({ workspace: join(roots.none, "ws"), session: "cpnone", label: "x" })).rejects.toMatchObject({ code: "WORKSPACE_NOT_SERVED" });
  });

  it("refuses a workspace no instance serves with WORKSPACE_NOT_SERVED naming the served roots, also at a session's start", async () => {
    const tools = busToolsPort(orchestratorConnection, timeouts);
    const call = { id: "c-none", name: "read_file", arguments: { path: "marker.txt" } };
    const error = await tools.exec("snone", join(roots.none, "ws"), call, { network: false }).catch((caught: unknown) => caught as { code: string; message: string });
    expect(error).toMatchObject({ code: "WORKSPACE_NOT_SERVED" });
    expect((error as Error).message).toContain(roots.a);
    expect((error as Error).message).toContain(roots.b);
    const tester = await bus.connectAs("tester");
    const refused = await requestJson(tester, "agent.cmd.start", { task: "read marker.txt", workspace: join(roots.none, "ws") }, 20_000);
    expect(refused).toMatchObject({ ok: false, error: { code: "WORKSPACE_NOT_SERVED" } });
    expect(refused.error.message).toContain(roots.a);
  });
});
