import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, hostileServer, processesWith, startMcpHarness, type McpHarness } from "./helpers.js";

describe("MCP service: each stdio server is contained by its own sandbox", () => {
  let harness: McpHarness;
  let listener: Server;
  let port = 0;
  beforeAll(async () => {
    listener = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", () => resolve()));
    port = (listener.address() as { port: number }).port;
    harness = await startMcpHarness(
      {
        offline: { command: process.execPath, args: [hostileServer] },
        online: { command: process.execPath, args: [hostileServer], network: true },
        writer: { command: process.execPath, args: [hostileServer], workspace_write: true },
        hanging: { command: process.execPath, args: [hostileServer], call_timeout_ms: 60_000 },
      },
      { beforeStart: ({ workspace }) => mkdirSync(join(workspace, ".git")) },
    );
  });
  afterAll(async () => {
    await harness?.stop();
    listener?.close();
  });

  it("a server without network consent cannot reach the network (even loopback); with consent it can", async () => {
    const denied = await harness.call("offline", "connect", { host: "127.0.0.1", port });
    expect(denied.result.output).toMatch(/^NETWORK_FAILED/);
    const allowed = await harness.call("online", "connect", { host: "127.0.0.1", port });
    expect(allowed.result.output).toBe("CONNECTED");
  });

  it("a server cannot write outside its allowed paths: not the workspace unless declared, never home, .git or the host's /tmp", async () => {
    const inWorkspace = await harness.call("offline", "write", { path: join(harness.workspace, "a.txt"), content: "x" });
    expect(inWorkspace.result.output).toMatch(/WRITE_FAILED (EROFS|EACCES)/);
    expect(existsSync(join(harness.workspace, "a.txt"))).toBe(false);
    const declared = await harness.call("writer", "write", { path: join(harness.workspace, "b.txt"), content: "ok" });
    expect(declared.result.output).toMatch(/^WROTE/);
    expect(readFileSync(join(harness.workspace, "b.txt"), "utf8")).toBe("ok");
    const git = await harness.call("writer", "write", { path: join(harness.workspace, ".git", "config"), content: "x" });
    expect(git.result.output).toMatch(/WRITE_FAILED/);
    const home = await harness.call("writer", "write", { path: join(harness.aideHome, "mcp.json"), content: "{}" });
    expect(home.result.output).toMatch(/WRITE_FAILED|^WROTE/);
    expect(JSON.parse(readFileSync(join(harness.aideHome, "mcp.json"), "utf8")).servers.offline).toBeDefined();
    const marker = `aide-mcp-escape-${process.pid}`;
    await harness.call("writer", "write", { path: `/tmp/${marker}`, content: "x" });
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  });

  it("each server runs in cgroups of its own with the configured limits (when the host has the controllers)", async (context) => {
    const server = (await harness.list()).result.servers.find((entry: { name: string }) => entry.name === "writer");
    const groups = readFileSync(`/proc/${server.pid}/cgroup`, "utf8");
    if (!server.sandbox.includes("pids=")) {
      // Nothing was limited, so nothing here was proved: a skip that says so, never a pass.
      expect(server.sandbox).toContain("cgroups none");
      const reason = `SKIPPED: the MCP service got no usable cgroup on this host (${server.sandbox}); the per-server limits were not tried`;
      process.stderr.write(`${reason}\n`);
      context.skip(reason);
      return;
    }
    if (server.sandbox.includes("cgroups v2 ")) {
      // Unified hierarchy: one group with every limit, beside the service's aide-service leaf.
      const group = /^0::(.*)$/m.exec(groups)![1]!;
      expect(group).toMatch(/aide-mcp-[0-9a-f]+-writer-\d+$/);
      const root = existsSync("/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
      expect(readFileSync(join(root, group, "pids.max"), "utf8").trim()).toBe("256");
      expect(readFileSync(join(root, group, "memory.oom.group"), "utf8").trim()).toBe("1");
      return;
    }
    const pidsGroup = /^\d+:pids:(.*)$/m.exec(groups)![1]!;
    expect(pidsGroup).toMatch(/aide-mcp-[0-9a-f]+-writer-\d+$/);
    expect(readFileSync(join("/sys/fs/cgroup/pids", pidsGroup, "pids.max"), "utf8").trim()).toBe("256");
  });

  it("a crashing server is reported and restarted; the next call works", async () => {
    const crashed = await harness.call("offline", "crash", {});
    expect(crashed.result).toMatchObject({ is_error: true, error_code: "MCP_SERVER_FAILED" });
    const state = await eventually(async () => {
      const list = await harness.list();
      const server = list.result.servers.find((entry: { name: string }) => entry.name === "offline");
      return server.state === "ready" && server.restarts >= 1 ? server : undefined;
    }, "the crashed server to be restarted");
    expect(state.last_error).toBeUndefined();
    const echo = await harness.call("offline", "echo", { message: "back" });
    expect(echo.result.output).toBe("echo: back");
  });

  it("a hanging call times out; the unresponsive server is killed with its children (no orphans) and restarted", async () => {
    const marker = `aide-mcp-orphan-${process.pid}-${Date.now()}`;
    const before = (await harness.list()).result.servers.find((entry: { name: string }) => entry.name === "hanging");
    const hung = await harness.call("hanging", "hang", { marker }, { timeout_ms: 2_000 });
    expect(hung.result).toMatchObject({ is_error: true, error_code: "MCP_CALL_TIMEOUT" });
    await eventually(async () => {
      const list = await harness.list();
      const server = list.result.servers.find((entry: { name: string }) => entry.name === "hanging");
      return server.state === "ready" && server.restarts > before.restarts ? server : undefined;
    }, "the hung server to be killed and restarted");
    await eventually(async () => ((await processesWith(marker)).length === 0 ? true : undefined), "the hung server's child to be reaped");
    const echo = await harness.call("hanging", "echo", { message: "alive" });
    expect(echo.result.output).toBe("echo: alive");
  });

  it("stopping the service leaves no server process behind", async () => {
    const pids = (await harness.list()).result.servers.map((server: { pid?: number }) => server.pid).filter((pid: unknown): pid is number => typeof pid === "number");
    expect(pids.length).toBe(4);
    await harness.service.stop();
    await eventually(() => (pids.every((pid: number) => !existsSync(`/proc/${pid}`)) ? true : undefined), "every server process to exit");
  });
});
