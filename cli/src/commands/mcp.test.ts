import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { run } from "./mcp.js";

describe("aide mcp add/list/remove/trust", () => {
  const root = mkdtempSync(join(tmpdir(), "aide-mcp-cli-"));
  const env = { ...process.env, AIDE_HOME: join(root, "home") };
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const capture = async (argv: string[]) => {
    let out = "";
    let err = "";
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
    try {
      return { code: await run(argv, env), out, err };
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  };
  const config = () => JSON.parse(readFileSync(join(env.AIDE_HOME, "mcp.json"), "utf8"));

  it("adds a validated server (0600 file, defaults: no network, read-only workspace) and removes it", async () => {
    const added = await capture(["add", "docs", "--auto-approve", "search", "--env", "MODE=fast", "--", "node", "/opt/docs/index.js", "--flag"]);
    expect(added.code).toBe(0);
    expect(config().servers.docs).toMatchObject({
      type: "stdio",
      command: "node",
      args: ["/opt/docs/index.js", "--flag"],
      network: false,
      workspace_write: false,
      auto_approve: ["search"],
      env: { MODE: "fast" },
    });
    expect(statSync(join(env.AIDE_HOME, "mcp.json")).mode & 0o777).toBe(0o600);
    expect((await capture(["list"])).out).toContain("docs");
    expect((await capture(["remove", "docs"])).code).toBe(0);
    expect(config().servers.docs).toBeUndefined();
  });

  it.each([
    [["add", "Bad_Name", "--", "x"], /name: must be lower-case/],
    [["add", "docs", "--env", "lower=1", "--", "x"], /servers\.docs\.env\.lower/],
    [["add", "docs"], /command goes after --/],
    [["add", "web", "--url", "nope"], /servers\.web/],
    [["remove", "absent"], /no MCP server named "absent"/],
  ])("refuses %j naming what is wrong (exit 2)", async (argv, message) => {
    const result = await capture(argv);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(message);
  });

  it("trusts a workspace's .mcp.json by its sha256", async () => {
    const workspace = join(root, "ws");
    mkdirSync(workspace);
    const text = JSON.stringify({ mcpServers: { project: { command: "node", args: ["s.js"] } } });
    writeFileSync(join(workspace, ".mcp.json"), text);
    expect((await capture(["trust", workspace])).code).toBe(0);
    const trust = JSON.parse(readFileSync(join(env.AIDE_HOME, "mcp-trust", "trusted.json"), "utf8"));
    expect(trust.trusted[workspace].sha256).toBe(createHash("sha256").update(text).digest("hex"));
  });
});
