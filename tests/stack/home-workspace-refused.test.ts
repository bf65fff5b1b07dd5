import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { workspaceTooBroadError } from "@aide/contracts";
import { startTestBus, type TestBus } from "../helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../helpers/service-process.js";

/**
 * Issue 26: `aide up` and the orchestrator refuse `/`, `$HOME` and ~/Documents, ~/Desktop,
 * ~/Downloads as workspaces, but the tools and checkpoints services took them when asked on the
 * bus directly (any holder of the stack's credentials can). Each service now applies the same rule
 * (contracts' workspaceTooBroadError) with the same code, WORKSPACE_TOO_BROAD.
 */
describe("the tools and checkpoints services refuse a home folder asked for on the bus", () => {
  let bus: TestBus;
  let client: NatsConnection;
  let home: string;
  const services: ServiceProcess[] = [];
  let counter = 0;

  const start = async (allowHome: boolean) => {
    // HOME is the fake home; no roots: only the home-folder rule stands between a caller and it.
    const env = { HOME: home, AIDE_WORKSPACE_ROOTS: "", AIDE_LOG_LEVEL: "info", ...(allowHome ? { AIDE_ALLOW_HOME_WORKSPACE: "1" } : {}) };
    const tools = await startServiceProcess(bus, "tools", { env });
    const checkpoints = await startServiceProcess(bus, "checkpoints", { env });
    services.push(tools, checkpoints);
    return { tools, checkpoints };
  };
  const toolsCall = (workspace: string) => {
    counter += 1;
    return requestJson(client, "agent.tools.exec", { session: "s1", workspace, call: { id: `c${counter}`, name: "list_dir", arguments: { path: "." } } }, 60_000);
  };
  const commit = (workspace: string) => requestJson(client, "agent.checkpoints.commit", { workspace, session: "s1", run: "r1", label: "x" }, 60_000);

  beforeAll(async () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), "aide-home-")));
    for (const folder of ["Documents", "Desktop", "Downloads", "projects/app"]) mkdirSync(join(home, folder), { recursive: true });
    writeFileSync(join(home, "Documents", "taxes.txt"), "private\n");
    writeFileSync(join(home, "projects", "app", "index.js"), "1\n");
    // A link elsewhere that leads to ~/Documents is still ~/Documents.
    symlinkSync(join(home, "Documents"), join(home, "projects", "docs-link"));
    bus = await startTestBus();
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await bus?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("refuses $HOME, ~/Documents, ~/Desktop, ~/Downloads and a link to ~/Documents with WORKSPACE_TOO_BROAD, the code and message aide run gives, and serves a project folder", async () => {
    const { tools, checkpoints } = await start(false);
    const refused = [home, join(home, "Documents"), join(home, "Desktop"), join(home, "Downloads/"), join(home, "projects", "docs-link")];
    for (const workspace of refused) {
      const fromTools = await toolsCall(workspace);
      expect(fromTools.ok, `tools: ${workspace}: ${JSON.stringify(fromTools).slice(0, 300)}`).toBe(false);
      expect(fromTools.error.code).toBe("WORKSPACE_TOO_BROAD");
      const fromCheckpoints = await commit(workspace);
      expect(fromCheckpoints.ok, `checkpoints: ${workspace}: ${JSON.stringify(fromCheckpoints).slice(0, 300)}`).toBe(false);
      expect(fromCheckpoints.error.code).toBe("WORKSPACE_TOO_BROAD");
    }
    // The very message of the rule `aide run` and the orchestrator apply (one function, not a copy).
    const expected = workspaceTooBroadError(join(home, "Documents"), home)?.message;
    expect(expected).toBeDefined();
    expect((await toolsCall(join(home, "Documents"))).error.message).toBe(expected);
    expect((await commit(join(home, "Documents"))).error.message).toBe(expected);
    const app = join(home, "projects", "app");
    expect((await toolsCall(app)).ok).toBe(true);
    expect((await commit(app)).ok).toBe(true);
    await tools.stop();
    await checkpoints.stop();
  }, 120_000);

  it("with AIDE_ALLOW_HOME_WORKSPACE=1 (aide up --allow-home-workspace) accepts ~/Documents but never $HOME", async () => {
    const { tools, checkpoints } = await start(true);
    expect((await toolsCall(join(home, "Documents"))).ok).toBe(true);
    expect((await commit(join(home, "Documents"))).ok).toBe(true);
    expect((await toolsCall(home)).error?.code).toBe("WORKSPACE_TOO_BROAD");
    expect((await commit(home)).error?.code).toBe("WORKSPACE_TOO_BROAD");
    await tools.stop();
    await checkpoints.stop();
  }, 120_000);
});
