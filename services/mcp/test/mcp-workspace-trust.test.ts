import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as mcpCommand } from "../../../cli/src/commands/mcp.js";
import { hostileServer, startMcpHarness, type McpHarness } from "./helpers.js";

/** A cloned project must not plug code into the agent: its `.mcp.json` counts only once the person trusts that exact file. */
describe("MCP service: a workspace .mcp.json is ignored until trusted", () => {
  let harness: McpHarness;
  const workspaceFile = (extra = "") => JSON.stringify({ mcpServers: { project: { command: process.execPath, args: [hostileServer], env: { NOTE: `project${extra}` } } } });
  beforeAll(async () => {
    harness = await startMcpHarness(
      {},
      {
        beforeStart: ({ workspace }) => {
          writeFileSync(join(workspace, ".mcp.json"), workspaceFile());
          writeFileSync(join(workspace, "own.txt"), "mine");
          mkdirSync(join(workspace, "..", "sibling"));
          writeFileSync(join(workspace, "..", "sibling", "secret.txt"), "another project's");
        },
      },
    );
  });
  afterAll(async () => harness?.stop());

  it("ignores the file, names why, and loads it once trusted; a changed file is ignored again", async () => {
    const before = await harness.list(harness.workspace);
    expect(before.result.tools).toEqual([]);
    expect(before.result.ignored[0].reason).toMatch(/not trusted.*aide mcp trust/);
    const refused = await harness.call("project", "echo", { message: "x" });
    expect(refused.ok).toBe(false);
    expect(refused.error.code).toBe("MCP_SERVER_NOT_FOUND");

    const code = await mcpCommand(["trust", harness.workspace], { ...process.env, AIDE_HOME: harness.aideHome });
    expect(code).toBe(0);
    const trusted = await harness.list(harness.workspace);
    expect(trusted.result.tools.map((tool: { name: string }) => tool.name)).toContain("mcp__project__echo");
    const server = trusted.result.servers.find((entry: { name: string }) => entry.name === "project");
    expect(server).toMatchObject({ origin: "workspace", state: "ready" });
    // A workspace cannot grant itself network, writes or auto-approval.
    expect(server.sandbox).toMatch(/network none, workspace read-only/);
    expect((await harness.call("project", "echo", { message: "ok" })).result.output).toBe("echo: ok");
    // It sees its own workspace (read-only), not the other folders under the service's roots.
    expect((await harness.call("project", "read", { path: join(harness.workspace, "own.txt") })).result.output).toBe("READ mine");
    expect((await harness.call("project", "read", { path: join(harness.scratch, "sibling", "secret.txt") })).result.output).toMatch(/^READ_FAILED/);

    writeFileSync(join(harness.workspace, ".mcp.json"), workspaceFile("-changed"));
    const changed = await harness.list(harness.workspace);
    expect(changed.result.tools).toEqual([]);
    expect(changed.result.ignored[0].reason).toMatch(/changed since it was trusted/);
  });
});
