import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentEventSchema, renderForScreen, type AgentEvent } from "@aide/contracts";
import { hostileStrings, rawControlPattern } from "../../../../contracts/test/hostile-strings.js";
import { renderEventPayload } from "./render-event-payload.js";

const fixtures = join(import.meta.dirname, "..", "..", "..", "..", "contracts", "test", "fixtures");
const events = readdirSync(fixtures)
  .filter((file) => file.startsWith("event-"))
  .map((file) => AgentEventSchema.parse((JSON.parse(readFileSync(join(fixtures, file), "utf8")) as { message: unknown }).message));
const hostile = hostileStrings.map((entry) => entry.text).join(" | ");

/** Every string of a payload (keys too) with the hostile catalog appended. */
function poison(value: unknown): unknown {
  if (typeof value === "string") return value + hostile;
  if (Array.isArray(value)) return value.length > 0 ? value.map(poison) : value;
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, poison(inner)]));
  return value;
}

describe("renderEventPayload", () => {
  it.each(events.filter((event) => event.type !== "approval.requested").map((event) => [event.type, event] as const))(
    "%s: no raw control or invisible character survives in the payload",
    (type, event) => {
      const payload = poison(event.payload) as AgentEvent["payload"];
      const rendered = renderEventPayload(type, payload as never);
      expect(JSON.stringify(rendered)).not.toMatch(/\\u00[01][0-9a-f]|\\u007f/);
      expect(JSON.stringify(rendered)).not.toMatch(rawControlPattern);
      // Clean text is left exactly as it was.
      expect(renderEventPayload(type, event.payload as never)).toEqual(event.payload);
    },
  );

  it("approval.requested keeps the raw command, diff, paths and args, and adds their screen forms and the counts", () => {
    const base = events.find((event) => event.type === "approval.requested")!;
    const command = `npm test ${hostile}`;
    const diff = `--- a/x\n+++ b/x\n+${hostile}\n`;
    const payload = { ...base.payload, command, diff, paths: ["a\u202Eb.txt"], args: { command }, model_hint: "trust me\u001b[2J" } as never;
    const rendered = renderEventPayload("approval.requested", payload) as Record<string, any>;
    expect(rendered.command).toBe(command);
    expect(rendered.diff).toBe(diff);
    expect(rendered.args).toEqual({ command });
    expect(rendered.paths).toEqual(["a\u202Eb.txt"]);
    expect(rendered.command_rendered).toBe(renderForScreen(command));
    expect(rendered.diff_rendered).toBe(renderForScreen(diff));
    expect(rendered.paths_rendered).toEqual(["a⟨U+202E⟩b.txt"]);
    expect(rendered.model_hint).toBe("trust me⟨ESC⟩[2J");
    for (const field of ["command_rendered", "diff_rendered", "paths_rendered", "model_hint"]) expect(JSON.stringify(rendered[field])).not.toMatch(rawControlPattern);
    expect(rendered.escapes.count).toBeGreaterThan(2 * hostileStrings.length);
    expect(rendered.escapes.kinds).toMatchObject({ escape: expect.any(Number), bidi: expect.any(Number), tag: expect.any(Number), carriage_return: expect.any(Number) });
    expect(AgentEventSchema.parse({ ...base, payload: rendered }).type).toBe("approval.requested");
    // Rendering a stored raw payload again (a re-offer after a restart) gives the same event.
    expect(renderEventPayload("approval.requested", payload)).toEqual(rendered);
  });
});
