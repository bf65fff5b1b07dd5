import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentEventSchema, escapedCount, renderForScreen, renderUntrusted, type AgentEvent } from "@aide/contracts";
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

  it("approval.requested: the command, diff, paths and args are their screen forms; the raw bytes travel only as base64, and render to exactly what is shown", () => {
    const base = events.find((event) => event.type === "approval.requested")!;
    const command = `npm test ${hostile}`;
    const diff = `--- a/x\n+++ b/x\n+${hostile}\n`;
    const payload = { ...base.payload, command, diff, paths: ["a\u202Eb.txt"], args: { command }, model_hint: "trust me\u001b[2J" } as never;
    const rendered = renderEventPayload("approval.requested", payload) as Record<string, any>;
    expect(rendered.command).toBe(renderForScreen(command));
    expect(rendered.diff).toBe(renderForScreen(diff));
    expect(rendered.paths).toEqual(["a⟨U+202E⟩b.txt"]);
    expect(rendered.args).toEqual({ command: renderForScreen(command) });
    expect(rendered.model_hint).toBe("trust me⟨ESC⟩[2J");
    for (const key of ["command_rendered", "diff_rendered", "paths_rendered"]) expect(rendered).not.toHaveProperty(key);
    expect(JSON.stringify(rendered)).not.toMatch(/\\u00[01][0-9a-f]|\\u007f/);
    expect(JSON.stringify(rendered)).not.toMatch(rawControlPattern);
    // What runs is the raw; what the person sees is its rendering: they correspond exactly.
    const raw = (field: string) => Buffer.from(rendered.raw_base64[field], "base64").toString("utf8");
    expect(raw("command")).toBe(command);
    expect(raw("diff")).toBe(diff);
    expect(rendered.raw_base64.paths.map((path: string) => Buffer.from(path, "base64").toString("utf8"))).toEqual(["a\u202Eb.txt"]);
    expect(JSON.parse(raw("args_json"))).toEqual({ command });
    expect(renderForScreen(raw("command"))).toBe(rendered.command);
    expect(renderForScreen(raw("diff"))).toBe(rendered.diff);
    // The counts cover what a screen shows once (the args repeat the command and are not counted again).
    expect(rendered.escapes.count).toBe([command, diff, "a\u202Eb.txt", "trust me\u001b[2J"].reduce((sum, text) => sum + escapedCount(renderUntrusted(text)), 0));
    expect(rendered.escapes.kinds).toMatchObject({ escape: expect.any(Number), bidi: expect.any(Number), tag: expect.any(Number), carriage_return: expect.any(Number) });
    expect(AgentEventSchema.parse({ ...base, payload: rendered }).type).toBe("approval.requested");
    // Rendering a stored raw payload again (a re-offer after a restart) gives the same event.
    expect(renderEventPayload("approval.requested", payload)).toEqual(rendered);
  });

  it("approval.requested with clean text carries no raw_base64 (the fields are the bytes)", () => {
    const base = events.find((event) => event.type === "approval.requested")!;
    const payload = { ...base.payload, command: "npm test", paths: ["src/a.ts"], args: { command: "npm test" } } as never;
    const rendered = renderEventPayload("approval.requested", payload) as Record<string, any>;
    expect(rendered.command).toBe("npm test");
    expect(rendered).not.toHaveProperty("raw_base64");
    expect(rendered.escapes).toEqual({ count: 0, kinds: {} });
  });
});
