import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readMcpConfig } from "./read-mcp-config.js";

describe("readMcpConfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-mcp-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (value: unknown) => {
    const path = join(dir, `mcp-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
    return path;
  };

  it("reads no file as no servers, and fills the defaults (no network, read-only workspace)", () => {
    expect(readMcpConfig(join(dir, "absent.json")).servers).toEqual({});
    const config = readMcpConfig(file({ servers: { docs: { command: "docs-server" } } }));
    expect(config.servers.docs).toMatchObject({ type: "stdio", command: "docs-server", network: false, workspace_write: false, auto_approve: [] });
  });

  it.each([
    [{ servers: { docs: { args: [] } } }, /servers\.docs\.command/],
    [{ servers: { Docs: { command: "x" } } }, /servers\.Docs/],
    [{ servers: { a__b: { command: "x" } } }, /servers\.a__b/],
    [{ servers: { docs: { command: "x", netwrk: true } } }, /netwrk/],
    [{ servers: { docs: { command: "x", env: { lower: "v" } } } }, /servers\.docs\.env\.lower/],
    [{ servers: { web: { type: "http", url: "not a url" } } }, /servers\.web/],
    ["{not json", /not valid JSON/],
  ])("refuses %j naming the field", (value, pattern) => {
    expect(() => readMcpConfig(file(value))).toThrow(pattern);
  });
});
