import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestJson } from "../../../tests/helpers/service-process.js";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/** Wrong calls of every shape: the service answers each one and keeps serving. */
describe("bad input never hurts the service", () => {
  let h: ToolsHarness;
  let names: string[];
  beforeAll(async () => {
    h = await startToolsHarness();
    const list = await requestJson(h.client, "agent.tools.list", {});
    names = list.result.tools.map((t: { name: string }) => t.name);
  });
  afterAll(async () => h?.stop());

  const garbage: Array<Record<string, unknown>> = [
    {},
    { path: 42, command: ["ls"], content: { a: 1 }, diff: null, pattern: true, id: 7 },
    { path: "x".repeat(5000), command: "y".repeat(20_000) },
    { path: "\u0000", offset: "-5", limit: "NaN", recursive: "maybe", timeout_ms: "1e309" },
    { path: "../../../../etc/shadow", diff: "<<<<<<< SEARCH\n", search: "", replace: "" },
    { path: "a", content: "\uD800 lone surrogate", pattern: "(?<=", include: "[", ref: "HEAD --output=/x" },
  ];

  it("answers every tool with every kind of garbage, as data", async () => {
    for (const name of names) {
      for (const args of garbage) {
        const reply = await h.exec(name, args);
        expect(reply.ok === true || ["VALIDATION", "APPROVAL_STALE", "BUSY"].includes(reply.error?.code), `${name} ${JSON.stringify(args).slice(0, 80)}: ${JSON.stringify(reply).slice(0, 200)}`).toBe(
          true,
        );
        const preview = await h.preview(name, args);
        expect(preview.ok, `${name} preview: ${JSON.stringify(preview).slice(0, 200)}`).toBe(true);
      }
    }
    const alive = await requestJson(h.client, "agent.tools.list", {});
    expect(alive.ok).toBe(true);
    expect(h.service.child.exitCode).toBeNull();
    expect(h.service.logs()).not.toMatch(/"level":50.*handler failed/);
  });

  it("refuses malformed requests with VALIDATION and survives non-JSON", async () => {
    const missing = await requestJson(h.client, "agent.tools.exec", { session: "s1", workspace: h.workspace });
    expect(missing.error.code).toBe("VALIDATION");
    const badSession = await requestJson(h.client, "agent.tools.exec", { session: "a.b>", workspace: h.workspace, call: { id: "1", name: "read_file", arguments: {} } });
    expect(badSession.error.code).toBe("VALIDATION");
    const binary = await requestJson(h.client, "agent.tools.preview", new Uint8Array([0xff, 0xfe, 0x00]));
    expect(binary.error.code).toBe("BAD_JSON");
    const alive = await requestJson(h.client, "agent.tools.list", {});
    expect(alive.ok).toBe(true);
  });
});
