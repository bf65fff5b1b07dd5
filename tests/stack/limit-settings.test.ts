import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStackProcess, type StackProcess } from "../helpers/stack-process.js";

/** The environment of a running process, as the kernel holds it. */
function environmentOf(pid: number): Record<string, string> {
  const raw = readFileSync(`/proc/${pid}/environ`, "utf8");
  return Object.fromEntries(
    raw
      .split("\0")
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );
}

describe("aide up passes the services' limits through from its own environment", () => {
  let home: string;
  let workspace: string;
  let stack: StackProcess;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-limits-"));
    workspace = mkdtempSync(join(tmpdir(), "aide-limits-ws-"));
    stack = await startStackProcess({
      aideHome: home,
      args: ["--workspace", workspace],
      env: {
        AIDE_TOOLS_MAX_CONCURRENT: "7",
        AIDE_TOOLS_MAX_QUEUED_COMMANDS_PER_SESSION: "3",
        AIDE_TOOLS_PREPARED_JAILS: "2",
        AIDE_TOOLS_SPAWN_HELPER: "off",
        AIDE_ORCHESTRATOR_MAX_IN_FLIGHT: "11",
        AIDE_HEARTBEAT_TIMEOUT_MS: "20000",
        AIDE_LEASE_MS: "45000",
        AIDE_GATEWAY_RATE_LIMIT: "1234",
        AIDE_MODEL_MAX_CONCURRENT: "5",
        AIDE_CHECKPOINT_MAX_CONCURRENT: "9",
        AIDE_CHECKPOINT_MAX_QUEUED: "99",
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it("each service gets its own settings, and only its own", () => {
    const pids = stack.stack.services as Record<string, { pid: number }>;
    const tools = environmentOf(pids.tools!.pid);
    const orchestrator = environmentOf(pids.orchestrator!.pid);
    const gateway = environmentOf(pids.gateway!.pid);
    const model = environmentOf(pids.model!.pid);
    const checkpoints = environmentOf(pids.checkpoints!.pid);
    expect(checkpoints).toMatchObject({ AIDE_CHECKPOINT_MAX_CONCURRENT: "9", AIDE_CHECKPOINT_MAX_QUEUED: "99" });
    expect(tools.AIDE_CHECKPOINT_MAX_QUEUED).toBeUndefined();
    expect(model).toMatchObject({ AIDE_MODEL_MAX_CONCURRENT: "5" });
    expect(tools.AIDE_MODEL_MAX_CONCURRENT).toBeUndefined();
    expect(tools).toMatchObject({ AIDE_TOOLS_MAX_CONCURRENT: "7", AIDE_TOOLS_MAX_QUEUED_COMMANDS_PER_SESSION: "3", AIDE_TOOLS_PREPARED_JAILS: "2", AIDE_TOOLS_SPAWN_HELPER: "off" });
    expect(orchestrator).toMatchObject({ AIDE_ORCHESTRATOR_MAX_IN_FLIGHT: "11", AIDE_HEARTBEAT_TIMEOUT_MS: "20000", AIDE_LEASE_MS: "45000" });
    expect(gateway).toMatchObject({ AIDE_GATEWAY_RATE_LIMIT: "1234" });
    expect(tools.AIDE_ORCHESTRATOR_MAX_IN_FLIGHT).toBeUndefined();
    expect(orchestrator.AIDE_TOOLS_MAX_CONCURRENT).toBeUndefined();
  });
});
