import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as contracts from "../src/index.js";

/**
 * Golden messages: each fixture file names the schema it belongs to; it must parse and
 * re-serialize to itself (so a wire change that alters a field's meaning or default shows up).
 */
const dir = join(import.meta.dirname, "fixtures");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();

describe("golden contract fixtures", () => {
  it("has fixtures for the commands, events, tools, checkpoints and model messages", () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });
  it.each(files)("%s parses and re-serializes to itself", (file) => {
    const { schema, message } = JSON.parse(readFileSync(join(dir, file), "utf8")) as { schema: string; message: unknown };
    const zodSchema = (contracts as unknown as Record<string, z.ZodTypeAny>)[schema];
    expect(zodSchema, `schema ${schema} exported from contracts`).toBeDefined();
    const parsed = zodSchema.parse(message);
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(message);
  });
  it("every event type in the union has a fixture", () => {
    const types = new Set(
      files
        .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as { schema: string; message: { type?: string } })
        .filter((f) => f.schema === "AgentEventSchema")
        .map((f) => f.message.type),
    );
    const union = contracts.AgentEventSchema.options.map((option) => option.shape.type.value);
    expect(union.filter((type) => !types.has(type))).toEqual([]);
  });
  it("rejects an event with a payload of another type", () => {
    const bad = { session: "s", run: "r", seq: 1, ts: "t", user: "u", depth: 0, strategy: "a", scheduler: "b", context_policy: "c", type: "run.state", payload: { mode: "act" } };
    expect(contracts.AgentEventSchema.safeParse(bad).success).toBe(false);
  });
});
