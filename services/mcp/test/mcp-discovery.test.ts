import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestJson } from "../../../tests/helpers/service-process.js";
import { eventually, everythingServer, filesystemServer, hostileServer, startMcpHarness, type McpHarness } from "./helpers.js";

describe("MCP service: discovery and calls through real servers from npm, each in its sandbox", () => {
  let harness: McpHarness;
  beforeAll(async () => {
    harness = await startMcpHarness(
      ({ workspace }) => ({
        everything: { command: process.execPath, args: [everythingServer, "stdio"], auto_approve: ["echo"] },
        // server-filesystem's allowed directory is the workspace.
        filesystem: { command: process.execPath, args: [filesystemServer, workspace] },
        hostile: { command: process.execPath, args: [hostileServer] },
        secretive: { command: process.execPath, args: [hostileServer], env_files: { API_TOKEN: "token" }, env: { PLAIN: "yes" } },
        remote: { type: "http", url: "http://192.0.2.1:8080/mcp" },
        leaky: { command: process.execPath, args: [hostileServer], env_files: { API_TOKEN: "loose" } },
      }),
      {
        beforeStart: ({ workspace, aideHome }) => {
          writeFileSync(join(workspace, "notes.txt"), "hello from the workspace\n");
          mkdirSync(join(aideHome, "mcp-secrets"), { mode: 0o700 });
          writeFileSync(join(aideHome, "mcp-secrets", "token"), "s3cret\n", { mode: 0o600 });
          writeFileSync(join(aideHome, "mcp-secrets", "loose"), "s3cret\n", { mode: 0o644 });
        },
      },
    );
  });
  afterAll(async () => harness?.stop());

  it("lists every server's tools as mcp__<server>__<tool>, with converted schemas and refusals named with reasons", async () => {
    const reply = await harness.list();
    expect(reply.ok).toBe(true);
    const names = reply.result.tools.map((tool: { name: string }) => tool.name);
    expect(names, JSON.stringify(reply.result.servers)).toContain("mcp__everything__echo");
    expect(names).toContain("mcp__everything__get_sum");
    expect(names).toContain("mcp__hostile__inject");
    const sum = reply.result.tools.find((tool: { name: string }) => tool.name === "mcp__everything__get_sum");
    expect(sum).toMatchObject({ server: "everything", tool: "get-sum", read_only_hint: true, auto_approved: false });
    expect(sum.parameters.properties.a.type).toBe("number");
    expect(reply.result.tools.find((tool: { name: string }) => tool.name === "mcp__everything__echo").auto_approved).toBe(true);
    const refused = reply.result.refused.find((entry: { tool: string }) => entry.tool === "complex");
    expect(refused.reason).toMatch(/value.*several types/);
    const states = Object.fromEntries(reply.result.servers.map((server: { name: string; state: string }) => [server.name, server]));
    expect(states.everything.state).toBe("ready");
    expect(states.hostile.sandbox).toMatch(/network none, workspace read-only/);
  });

  it("calls a tool (XML-style string arguments are converted by the schema) and refuses bad arguments by field", async () => {
    const sum = await harness.call("everything", "get-sum", { a: "2", b: 40 });
    expect(sum.ok).toBe(true);
    expect(sum.result.is_error).toBe(false);
    expect(sum.result.output).toContain("42");
    const bad = await harness.call("everything", "get-sum", { a: "two" });
    expect(bad.result).toMatchObject({ is_error: true, error_code: "MCP_ARGUMENTS_INVALID" });
    expect(bad.result.output).toMatch(/\ba\b.*\bb\b|b:/s);
    const unknown = await harness.call("nosuch", "x", {});
    expect(unknown.ok).toBe(false);
    expect(unknown.error.code).toBe("MCP_SERVER_NOT_FOUND");
  });

  it("reads the workspace through server-filesystem and cannot write it (read-only unless declared)", async () => {
    const read = await harness.call("filesystem", "read_text_file", { path: join(harness.workspace, "notes.txt") });
    expect(read.result.output).toContain("hello from the workspace");
    const write = await harness.call("filesystem", "write_file", { path: join(harness.workspace, "new.txt"), content: "x" });
    expect(write.result.is_error).toBe(true);
    expect(write.result.output).toMatch(/EROFS|read-only/i);
  });

  it("cancels an in-flight call on request (what a run's abort sends)", async () => {
    const sleeping = harness.call("hostile", "sleep", { seconds: 300 }, { call_id: "to-cancel" });
    // In flight once the service logged it (a cancel sent earlier would take the path tested below).
    await eventually(() => (/"call":"to-cancel","msg":"MCP call"/.test(harness.service.logs()) ? true : undefined), "the call to be in flight");
    expect((await requestJson(harness.client, "agent.mcp.cancel", { call_id: "to-cancel" })).result.cancelled).toBe(true);
    expect((await sleeping).result).toMatchObject({ is_error: true, error_code: "MCP_CALL_CANCELLED" });
    // A cancel that overtakes its call on the bus still cancels it: the call is refused on arrival.
    expect((await requestJson(harness.client, "agent.mcp.cancel", { call_id: "early" })).result.cancelled).toBe(false);
    expect((await harness.call("hostile", "sleep", { seconds: 300 }, { call_id: "early" })).result).toMatchObject({ is_error: true, error_code: "MCP_CALL_CANCELLED" });
    // The server got MCP's cancellation and is still usable.
    expect((await harness.call("hostile", "echo", { message: "after" })).result.output).toBe("echo: after");
  });

  it("logs every call twice, when it is sent and when it ended, in that order, with the call's fields", async () => {
    const reply = await harness.call("hostile", "echo", { message: "logged" }, { call_id: "logged-call" });
    expect(reply.result.output).toBe("echo: logged");
    const lines = await eventually(() => {
      const found = harness.service
        .logs()
        .split("\n")
        .filter((line) => line.includes('"call":"logged-call"'));
      return found.some((line) => line.includes('"msg":"MCP call ended"')) ? found : undefined;
    }, "the call's end to be logged");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["MCP call", "MCP call ended"]);
    expect(JSON.parse(lines[1]!)).toMatchObject({ server: "hostile", tool: "echo", is_error: false, duration_ms: expect.any(Number) });
  });

  it("lists a server's resources and prompts and reads them on request, as tools of that server", async () => {
    const reply = await harness.list();
    const read = reply.result.tools.find((tool: { name: string }) => tool.name === "mcp__everything__aide_read_resource");
    expect(read.description).toContain("demo://resource/static/document/architecture.md");
    const resource = await harness.call("everything", "aide_read_resource", { uri: "demo://resource/static/document/architecture.md" });
    expect(resource.result.is_error).toBe(false);
    expect(resource.result.output).toContain("[resource demo://resource/static/document/architecture.md]");
    const prompt = await harness.call("everything", "aide_get_prompt", { name: "args-prompt", arguments: '{"city":"Lisbon"}' });
    expect(prompt.result.output).toContain("Lisbon");
    const badPrompt = await harness.call("everything", "aide_get_prompt", { name: "no-such-prompt" });
    expect(badPrompt.result.error_code).toBe("MCP_ARGUMENTS_INVALID");
  });

  it("gives a server only its allow-listed environment (no bus credentials)", async () => {
    const reply = await harness.call("hostile", "env", {});
    const names = String(reply.result.output).split(",");
    expect(names).toContain("PATH");
    expect(names.some((name) => name.startsWith("AIDE_"))).toBe(false);
  });

  it("gives a secret from a 0600 file under $AIDE_HOME/mcp-secrets, and refuses a file others can read, naming the field", async () => {
    const names = String((await harness.call("secretive", "env", {})).result.output).split(",");
    expect(names).toEqual(expect.arrayContaining(["API_TOKEN", "PLAIN"]));
    const leaky = (await harness.list()).result.servers.find((server: { name: string }) => server.name === "leaky");
    expect(leaky).toMatchObject({ state: "failed", restarts: 0 });
    expect(leaky.last_error, leaky.last_error).toMatch(/servers\.leaky\.env_files\.API_TOKEN: .*chmod 600/);
  });

  it("refuses a non-loopback HTTP server without allowRemote (as models are)", async () => {
    const remote = (await harness.list()).result.servers.find((server: { name: string }) => server.name === "remote");
    expect(remote).toMatchObject({ transport: "http", tools: 0, state: "failed", restarts: 0 });
    expect(remote.last_error).toMatch(/not on loopback.*does not allow remote/);
  });
});
