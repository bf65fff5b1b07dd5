import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { repoRoot, requestJson, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";

export const everythingServer = join(repoRoot, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
export const filesystemServer = join(repoRoot, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
export const hostileServer = join(repoRoot, "services", "mcp", "test", "fixtures", "hostile-server.mjs");
export const stdoutAbuseServer = join(repoRoot, "services", "mcp", "test", "fixtures", "stdout-abuse-server.mjs");

export interface McpHarness {
  bus: TestBus;
  service: ServiceProcess;
  client: NatsConnection;
  scratch: string;
  aideHome: string;
  workspace: string;
  list(workspace?: string): Promise<any>;
  call(server: string, tool: string, args: Record<string, unknown>, extra?: Record<string, unknown>): Promise<any>;
  stop(): Promise<void>;
}

let counter = 0;

/** A real nats-server and the compiled MCP service as a process, with `servers` as $AIDE_HOME/mcp.json. */
export async function startMcpHarness(
  servers: Record<string, unknown> | ((paths: { aideHome: string; workspace: string }) => Record<string, unknown>),
  options: { beforeStart?: (paths: { aideHome: string; workspace: string }) => void } = {},
): Promise<McpHarness> {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "aide-mcp-")));
  const aideHome = join(scratch, "home");
  const workspace = join(scratch, "ws");
  mkdirSync(aideHome, { mode: 0o700 });
  mkdirSync(workspace);
  const declared = typeof servers === "function" ? servers({ aideHome, workspace }) : servers;
  writeFileSync(join(aideHome, "mcp.json"), JSON.stringify({ servers: declared }, null, 2));
  options.beforeStart?.({ aideHome, workspace });
  const bus = await startTestBus();
  const client = await bus.connectAs("tester");
  const service = await startServiceProcess(bus, "mcp", {
    env: { AIDE_HOME: aideHome, AIDE_WORKSPACE_ROOTS: scratch, AIDE_MCP_RESTART_INITIAL_MS: "200" },
    pinger: client,
    readyTimeoutMs: 60_000,
  });
  return {
    bus,
    service,
    client,
    scratch,
    aideHome,
    workspace,
    list: (ws) => requestJson(client, "agent.mcp.list", ws === undefined ? {} : { workspace: ws }, 60_000),
    call(server, tool, args, extra = {}) {
      counter += 1;
      return requestJson(client, "agent.mcp.call", { session: "s1", call_id: `c${counter}`, server, tool, arguments: args, workspace, ...extra }, 90_000);
    },
    async stop() {
      await service.stop();
      await bus.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value (no timing asserted: a generous deadline only bounds a broken run). */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, deadlineMs = 60_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Host processes whose command line contains `marker`. */
export async function processesWith(marker: string): Promise<number[]> {
  const { readdirSync, readFileSync } = await import("node:fs");
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found.filter((pid) => pid !== process.pid);
}
