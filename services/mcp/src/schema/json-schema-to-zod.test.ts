import { describe, expect, it } from "vitest";
import { jsonSchemaToZod } from "./json-schema-to-zod.js";

const convert = (schema: unknown) => {
  const converted = jsonSchemaToZod(schema);
  if (!converted.ok) throw new Error(converted.reason);
  return converted.schema;
};

describe("jsonSchemaToZod", () => {
  it("accepts what the schema accepts, converting the XML protocol's string values", () => {
    const schema = convert({
      type: "object",
      properties: {
        a: { type: "number" },
        n: { type: "integer", minimum: 1 },
        flag: { type: "boolean" },
        mode: { type: "string", enum: ["x", "y"] },
        tags: { type: "array", items: { type: "string" }, maxItems: 2 },
        nested: { type: "object", properties: { k: { type: "string" } }, required: ["k"], additionalProperties: false },
        maybe: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["a"],
    });
    expect(schema.parse({ a: "2.5", n: "3", flag: "true", mode: "y", tags: '["p","q"]', nested: '{"k":"v"}', maybe: null })).toEqual({
      a: 2.5,
      n: 3,
      flag: true,
      mode: "y",
      tags: ["p", "q"],
      nested: { k: "v" },
      maybe: null,
    });
    for (const bad of [{}, { a: "two" }, { a: 1, n: 0 }, { a: 1, n: 1.5 }, { a: 1, mode: "z" }, { a: 1, tags: ["1", "2", "3"] }, { a: 1, nested: { k: "v", extra: 1 } }]) {
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("names the field in a failure", () => {
    const result = convert({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }).safeParse({ file_path: "x" });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["path"]);
  });

  it.each([
    [{ type: "object", properties: { v: { oneOf: [{ type: "string" }, { type: "number" }] } } }, /v: `oneOf`/],
    [{ type: "object", properties: { v: { $ref: "#/definitions/x" } } }, /v: `\$ref`/],
    [{ type: "object", properties: { v: { type: ["string", "number"] } } }, /v: a value of several types/],
    [{ type: "object", properties: { v: { type: "array", items: [{ type: "string" }] } } }, /v: tuple/],
    [{ type: "object", patternProperties: { "^x": { type: "string" } } }, /patternProperties/],
    [{ type: "array" }, /must be an object/],
    [{ type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } } }, /anyOf/],
  ])("refuses %j with a reason", (schema, reason) => {
    const converted = jsonSchemaToZod(schema);
    expect(converted.ok).toBe(false);
    if (!converted.ok) expect(converted.reason).toMatch(reason);
  });

  it("shows the model the server's schema minus $schema", () => {
    const converted = jsonSchemaToZod({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { m: { type: "string" } } });
    expect(converted.ok && converted.jsonSchema).toEqual({ type: "object", properties: { m: { type: "string" } } });
  });
});
