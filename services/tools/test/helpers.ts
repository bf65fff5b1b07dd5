import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { installRoot, sandboxProfiles } from "@aide/cli/supervisor";
import { serviceSandboxArguments } from "@aide/runtime";
import { requestJson, startServiceProcess, type ServiceProcess, type ServiceWrapper } from "../../../tests/helpers/service-process.js";

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

/** The tools service inside its `aide up` bubblewrap profile, with `roots` as the workspace roots. */
function sandboxedAsByAideUp(roots: string[], credentialsFile: string): ServiceWrapper {
  return (argv, env) => {
    const args = serviceSandboxArguments({
      profile: sandboxProfiles.tools,
      env,
      command: argv,
      home: process.env.HOME ?? "/root",
      aideHome: join(process.env.HOME ?? "/root", ".aide"),
      installRoot,
      credentialsFile,
      workspaceRoots: roots,
      readOnly: [],
    });
    return { file: "bwrap", args, env: { PATH: env.PATH } };
  };
}

/**
 * A real nats-server, the compiled tools service as a process, and a tester connection.
 * `sandboxed` runs the service in the bubblewrap profile `aide up` gives it (the scratch directory
 * is then its workspace root); otherwise it runs as with `--unsandboxed-services`.
 */
export async function startToolsHarness(
  options: { env?: Record<string, string>; args?: string[]; scratchParent?: string; workspaceRootIsScratch?: boolean; stateInScratch?: boolean; sandboxed?: boolean } = {},
): Promise<ToolsHarness> {
  const scratch = realpathSync(mkdtempSync(join(options.scratchParent ?? tmpdir(), "aide-tools-")));
  const workspace = join(scratch, "ws");
  (await import("node:fs")).mkdirSync(workspace);
  const bus = await startTestBus();
  const client = await bus.connectAs("tester");
  const env = {
    ...(options.workspaceRootIsScratch || options.sandboxed ? { AIDE_WORKSPACE_ROOTS: scratch } : {}),
    ...(options.stateInScratch ? { AIDE_TOOLS_STATE_DIR: join(scratch, "state") } : {}),
    ...options.env,
  };
  const wrap = options.sandboxed ? sandboxedAsByAideUp([scratch], bus.server.credentialFiles.tools ?? "") : undefined;
  const service = await startServiceProcess(bus, "tools", { env, args: options.args, pinger: client, wrap });
  const call =
    (subject: string) =>
    async (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
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
