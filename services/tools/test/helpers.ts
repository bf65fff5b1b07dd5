import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";

export interface ToolsHarness {
  bus: TestBus;
  service: ServiceProcess;
  client: NatsConnection;
  /** A scratch directory; `workspace` is inside it, so siblings are "outside the workspace". */
  scratch: string;
  workspace: string;
  exec(name: string, args: Record<string, unknown>, extra?: Record<string, unknown>): Promise<any>;
  preview(name: string, args: Record<string, unknown>, extra?: Record<string, unknown>): Promise<any>;
  /** Stops the tools service process and starts a new one with the same settings. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

let callCounter = 0;

/** A real nats-server, the compiled tools service as a process, and a tester connection. */
export async function startToolsHarness(options: { env?: Record<string, string>; args?: string[]; scratchParent?: string; workspaceRootIsScratch?: boolean; stateInScratch?: boolean } = {}): Promise<ToolsHarness> {
  const scratch = realpathSync(mkdtempSync(join(options.scratchParent ?? tmpdir(), "aide-tools-")));
  const workspace = join(scratch, "ws");
  (await import("node:fs")).mkdirSync(workspace);
  const bus = await startTestBus();
  const client = await bus.connectAs("tester");
  const env = {
    ...(options.workspaceRootIsScratch ? { AIDE_WORKSPACE_ROOTS: scratch } : {}),
    ...(options.stateInScratch ? { AIDE_TOOLS_STATE_DIR: join(scratch, "state") } : {}),
    ...options.env,
  };
  const service = await startServiceProcess(bus, "tools", { env, args: options.args, pinger: client });
  const call = (subject: string) => async (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    callCounter += 1;
    const reply = await requestJson(client, subject, { session: "s1", workspace, call: { id: `c${callCounter}`, name, arguments: args }, ...extra }, 60_000);
    return reply;
  };
  const harness: ToolsHarness = {
    bus,
    service,
    client,
    scratch,
    workspace,
    exec: call("agent.tools.exec"),
    preview: call("agent.tools.preview"),
    async restart() {
      await harness.service.stop();
      harness.service = await startServiceProcess(bus, "tools", { env, args: options.args, pinger: client });
    },
    async stop() {
      await harness.service.stop();
      await bus.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  return harness;
}
