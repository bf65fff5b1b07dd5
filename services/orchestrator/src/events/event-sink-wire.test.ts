import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { AgentEventSchema, renderForScreen, type AgentEvent } from "@aide/contracts";
import { hostileStrings, rawControlPattern, stringsOf as strings } from "../../../../contracts/test/hostile-strings.js";
import { EventSink, type SequenceHolder } from "./event-sink.js";

const fixtures = join(import.meta.dirname, "..", "..", "..", "..", "contracts", "test", "fixtures");
const events = readdirSync(fixtures)
  .filter((file) => file.startsWith("event-"))
  .map((file) => AgentEventSchema.parse((JSON.parse(readFileSync(join(fixtures, file), "utf8")) as { message: unknown }).message));
const hostile = hostileStrings.map((entry) => entry.text).join(" | ");

/**
 * The event with the hostile catalog appended to every string the schema lets hold free text
 * (each string leaf is tried; one whose poisoned form the schema refuses, an enum or a digest, is kept;
 * a bounded one gets the first catalog entry that fits and that JSON itself leaves raw, e.g. U+202E).
 */
function poison(event: AgentEvent): AgentEvent {
  const copy = structuredClone(event) as unknown as Record<string, unknown>;
  const { escapes: _escapes, raw_base64: _raw, ...payload } = copy["payload"] as Record<string, unknown>;
  copy["payload"] = payload;
  const visit = (holder: Record<string, unknown> | unknown[]) => {
    for (const key of Object.keys(holder)) {
      const value = (holder as Record<string, unknown>)[key];
      if (typeof value === "string") {
        // The whole catalog, or (a bounded string, e.g. a 200-character command rule) the first entry that fits.
        const kept = [hostile, ...hostileStrings.map((entry) => entry.text).filter((text) => rawControlPattern.test(JSON.stringify(text)))].find((text) => {
          (holder as Record<string, unknown>)[key] = value + text;
          return AgentEventSchema.safeParse(copy).success;
        });
        if (kept === undefined) (holder as Record<string, unknown>)[key] = value;
      } else if (value !== null && typeof value === "object") visit(value as Record<string, unknown>);
    }
  };
  visit(payload);
  return copy as unknown as AgentEvent;
}

describe("EventSink: what leaves the one place events are published", () => {
  const types = [...new Set(events.map((event) => event.type))];
  it.each(types)("%s with hostile strings in every field: the published bytes hold no raw control or invisible character, and no field holds one once parsed", async (type) => {
    const published: Uint8Array[] = [];
    const sink = new EventSink({ publish: async (_subject, data) => void published.push(data), now: () => new Date(0), logger: pino({ level: "silent" }), sleep: async () => undefined });
    const holder: SequenceHolder = { last_seq: 0, outbox: [] };
    let poisoned = 0;
    for (const event of events.filter((candidate) => candidate.type === type)) {
      const hostileEvent = poison(event);
      if (JSON.stringify(hostileEvent).match(rawControlPattern)) poisoned += 1;
      await sink.emit({ session: "s1", run: "r1", user: "u", depth: 0 }, holder, type, hostileEvent.payload as never);
    }
    await sink.flush();
    expect(published.length).toBeGreaterThan(0);
    // Some field of the event can hold free text (run.state, tool.batch_limited and mode.changed hold none).
    if (!["run.state", "tool.batch_limited", "mode.changed"].includes(type)) expect(poisoned).toBeGreaterThan(0);
    for (const data of published) {
      const text = new TextDecoder().decode(data);
      expect(text).not.toMatch(rawControlPattern);
      const event = JSON.parse(text) as AgentEvent;
      // Not the fallback run.state of an event that failed its schema: the event itself went out.
      expect(event.type).toBe(type);
      for (const value of strings(event.payload)) expect(value, `${type}: ${JSON.stringify(value).slice(0, 80)}`).not.toMatch(rawControlPattern);
    }
  });

  it("approval.requested: the raw command under raw_base64 is the one proposed, and its rendering is the command shown", async () => {
    const published: Uint8Array[] = [];
    const sink = new EventSink({ publish: async (_subject, data) => void published.push(data), now: () => new Date(0), logger: pino({ level: "silent" }) });
    const base = events.find((event) => event.type === "approval.requested")!;
    const command = `printf 'ok\\033]52;c;Y3VybA==\\007' ${hostile}`;
    const { escapes: _escapes, raw_base64: _raw, ...payload } = base.payload as Record<string, unknown>;
    await sink.emit({ session: "s1", run: "r1", user: "u", depth: 0 }, { last_seq: 0, outbox: [] }, "approval.requested", { ...payload, command, args: { command } } as never);
    await sink.flush();
    const event = JSON.parse(new TextDecoder().decode(published[0])) as AgentEvent;
    if (event.type !== "approval.requested") throw new Error(`published ${event.type}`);
    const raw = Buffer.from(event.payload.raw_base64?.command ?? "", "base64").toString("utf8");
    expect(raw).toBe(command);
    expect(event.payload.command).toBe(renderForScreen(raw));
  });
});
