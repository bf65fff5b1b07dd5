import { createServer, type Server } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startMcpHarness, type McpHarness } from "./helpers.js";

/** A Streamable HTTP MCP server on loopback (stateless: one SDK server per request), reached by the service. */
describe("MCP service: a Streamable HTTP server on loopback", () => {
  let http: Server;
  let harness: McpHarness;
  let requests = 0;
  beforeAll(async () => {
    http = createServer(async (request, response) => {
      requests += 1;
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
      const server = new McpServer({ name: "http-fixture", version: "1.0.0" });
      server.registerTool("shout", { description: "Upper-cases its text.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on("close", () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      await transport.handleRequest(request, response, body);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
    const port = (http.address() as { port: number }).port;
    harness = await startMcpHarness({ web: { type: "http", url: `http://127.0.0.1:${port}/mcp` } });
  });
  afterAll(async () => {
    await harness?.stop();
    http?.close();
  });

  it("lists and calls its tools like a stdio server's", async () => {
    const list = await harness.list();
    expect(list.result.servers[0]).toMatchObject({ name: "web", transport: "http", state: "ready" });
    expect(list.result.tools.map((tool: { name: string }) => tool.name)).toEqual(["mcp__web__shout"]);
    const reply = await harness.call("web", "shout", { text: "quiet" });
    expect(reply.result).toMatchObject({ is_error: false, output: "QUIET" });
    expect(requests).toBeGreaterThan(0);
  });
});
