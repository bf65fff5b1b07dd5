import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentEventSchema } from "@aide/contracts";
import { formatEvent } from "../src/commands/events.js";
import { hostileStrings, rawControlPattern } from "../../contracts/test/hostile-strings.js";

const fixtures = join(import.meta.dirname, "..", "..", "contracts", "test", "fixtures");
const events = readdirSync(fixtures)
  .filter((file) => file.startsWith("event-"))
  .map((file) => AgentEventSchema.parse((JSON.parse(readFileSync(join(fixtures, file), "utf8")) as { message: unknown }).message));

describe("aide events formatting", () => {
  it.each(events.map((event) => [event.type, event] as const))("%s prints one line with time, session, seq and type", (type, event) => {
    const line = formatEvent(event);
    expect(line).not.toContain("\n");
    expect(line).toContain(type);
    expect(line).toContain(`#${String(event.seq).padStart(4)}`);
    expect(line.startsWith("05:00:00.000")).toBe(true);
  });
  it("flags protected paths, invisible characters and network in approvals", () => {
    const approval = events.find((event) => event.type === "approval.requested")!;
    const flagged = structuredClone(approval) as typeof approval & { payload: Record<string, unknown> };
    Object.assign(flagged.payload, {
      protected: [{ path: ".github/workflows/ci.yml", reason: "CI workflow" }],
      invisible: [{ line: 1, codepoint: "U+202E", kind: "bidi" }],
      network: "consent_required",
    });
    const line = formatEvent(flagged);
    expect(line).toContain("[PROTECTED]");
    expect(line).toContain("[INVISIBLE CHARACTERS]");
    expect(line).toContain("[network: consent_required]");
    const mcp = formatEvent({ ...approval, payload: { ...approval.payload, mcp: { server: "poisoned", tool: "lookup", arguments_json: "{}", hidden_characters: 3 } } } as typeof approval);
    expect(mcp).toContain("[MCP SERVER WITH HIDDEN CHARACTERS]");
  });
  it.each(hostileStrings)("$name in any text field prints as tokens, marked, on one line", ({ text }) => {
    for (const event of events) {
      const poisoned = structuredClone(event) as typeof event & { payload: Record<string, unknown> };
      for (const [key, value] of Object.entries(poisoned.payload)) if (typeof value === "string" && !["state", "mode", "decision"].includes(key)) poisoned.payload[key] = value + text;
      const line = formatEvent(poisoned);
      expect(line, event.type).not.toMatch(rawControlPattern);
    }
    const approval = events.find((event) => event.type === "approval.requested")!;
    const line = formatEvent({ ...approval, payload: { ...approval.payload, command: `npm test ${text}` } } as typeof approval);
    expect(line).not.toMatch(rawControlPattern);
    expect(line).toContain("npm test");
    expect(line).toMatch(/⚠ \d+ hidden\/control characters? shown as ⟨…⟩/);
  });
});
