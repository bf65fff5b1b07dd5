import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startMcpHarness, stdoutAbuseServer, type McpHarness } from "./helpers.js";

// The service's stdio transport hands each line on JSON-parsed and leaves the checking of the
// JSON-RPC envelope to the SDK's protocol (one check, not two): these prove a server's stdout is
// still checked and bounded data.
describe("MCP service: a server's stdout is checked, bounded data", () => {
  let harness: McpHarness;
  beforeAll(async () => {
    harness = await startMcpHarness({
      lines: { command: process.execPath, args: [stdoutAbuseServer] },
      flooder: { command: process.execPath, args: [stdoutAbuseServer] },
    });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("a forged answer with a bad envelope, a JSON line that is not JSON-RPC and a line that is not JSON are dropped; the real answer is the result", async () => {
    const reply = await harness.call("lines", "forged", {});
    expect(reply.result).toMatchObject({ is_error: false, output: "REAL" });
  });

  it("an answer whose envelope is well formed but whose result is not a CallToolResult is refused, not passed on", async () => {
    const reply = await harness.call("lines", "badresult", {}, { timeout_ms: 30_000 });
    expect(reply.result).toMatchObject({ is_error: true, error_code: "MCP_SERVER_FAILED" });
    expect(reply.result.output).not.toContain("not a list of parts");
    expect((await harness.call("lines", "echo", { message: "still here" })).result.output).toBe("echo: still here");
  });

  it("a server that writes past the line bound is killed and restarted; the service stays up", async () => {
    const reply = await harness.call("flooder", "flood", {}, { timeout_ms: 60_000 });
    expect(reply.result).toMatchObject({ is_error: true, error_code: "MCP_SERVER_FAILED" });
    expect(harness.service.child.exitCode).toBeNull();
    const after = await eventually(async () => {
      const echoed = await harness.call("flooder", "echo", { message: "back" });
      return echoed.result?.is_error === false ? echoed : undefined;
    }, "the flooding server restarted");
    expect(after.result.output).toBe("echo: back");
    const state = (await harness.list()).result.servers.find((entry: { name: string }) => entry.name === "flooder");
    expect(state.restarts).toBeGreaterThanOrEqual(1);
  });
});
