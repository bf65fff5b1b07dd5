import { z } from "zod";

export type Converted = { ok: true; schema: z.ZodTypeAny; jsonSchema: Record<string, unknown> } | { ok: false; reason: string };

type Json = Record<string, unknown>;

/** Keywords with no faithful zod (or catalog) form: a tool using them is refused, not guessed at. */
const unsupported = ["$ref", "oneOf", "allOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas", "dependentRequired", "prefixItems", "unevaluatedProperties", "contains"];
/** Annotations that change nothing about what is accepted. */
const annotations = new Set(["description", "title", "default", "examples", "$schema", "$id", "format", "deprecated", "readOnly", "writeOnly", "$comment"]);
const maxDepth = 6;

class Refusal extends Error {}

function refuse(path: string, why: string): never {
  throw new Refusal(`${path || "(root)"}: ${why}`);
}

/**
 * XML-protocol arguments arrive as strings: a number, boolean, array or object field accepts its
 * JSON text too ("3", "true", "[1,2]"). Anything else is left for the schema to refuse by name.
 */
function fromText(kind: "number" | "boolean" | "json") {
  return (value: unknown) => {
    if (typeof value !== "string") return value;
    const text = value.trim();
    if (kind === "number") return text !== "" && Number.isFinite(Number(text)) ? Number(text) : value;
    if (kind === "boolean") return text === "true" ? true : text === "false" ? false : value;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return value;
    }
  };
}

function primitiveEnum(values: unknown[], path: string): z.ZodTypeAny {
  if (values.length === 0) refuse(path, "an empty enum accepts nothing");
  if (!values.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v))) refuse(path, "enum values must be strings, numbers, booleans or null");
  const literals = values.map((v) => z.literal(v as string | number | boolean | null));
  const schema = literals.length === 1 ? literals[0]! : z.union(literals as unknown as [z.ZodTypeAny, z.ZodTypeAny, ...z.ZodTypeAny[]]);
  const numeric = values.some((v) => typeof v === "number");
  return numeric ? z.preprocess(fromText("number"), schema) : schema;
}

function convertNode(node: unknown, path: string, depth: number): z.ZodTypeAny {
  if (depth > maxDepth) refuse(path, `nested deeper than ${maxDepth} levels`);
  if (node === true || (node && typeof node === "object" && Object.keys(node).every((key) => annotations.has(key)))) return z.unknown();
  if (node === false) refuse(path, "a false schema accepts nothing");
  if (!node || typeof node !== "object" || Array.isArray(node)) refuse(path, "not a JSON Schema object");
  const schema = node as Json;
  for (const keyword of unsupported) if (keyword in schema) refuse(path, `\`${keyword}\` cannot be represented in the catalog's schemas`);
  let result: z.ZodTypeAny;
  if ("const" in schema) result = primitiveEnum([schema.const], path);
  else if (Array.isArray(schema.enum)) result = primitiveEnum(schema.enum, path);
  else if (Array.isArray(schema.anyOf)) result = convertAnyOf(schema.anyOf, path, depth);
  else result = convertTyped(schema, path, depth);
  const description = typeof schema.description === "string" ? schema.description : undefined;
  return description ? result.describe(description) : result;
}

/** Only `anyOf: [X, {type: "null"}]` (a nullable X), which is how many servers say "optional". */
function convertAnyOf(options: unknown[], path: string, depth: number): z.ZodTypeAny {
  const nonNull = options.filter((option) => !(option && typeof option === "object" && (option as Json).type === "null"));
  if (nonNull.length !== 1 || options.length > 2) refuse(path, "`anyOf` other than a nullable single schema cannot be represented");
  return convertNode(nonNull[0], path, depth + 1).nullable();
}

function convertTyped(schema: Json, path: string, depth: number): z.ZodTypeAny {
  let type = schema.type;
  let nullable = false;
  if (Array.isArray(type)) {
    const kinds = type.filter((kind) => kind !== "null");
    nullable = kinds.length < type.length;
    if (kinds.length !== 1) refuse(path, `a value of several types (${type.join(", ")}) cannot be represented`);
    type = kinds[0];
  }
  if (type === undefined && (schema.properties !== undefined || schema.required !== undefined)) type = "object";
  let result: z.ZodTypeAny;
  switch (type) {
    case "string": {
      let s = z.string();
      if (typeof schema.minLength === "number") s = s.min(schema.minLength);
      if (typeof schema.maxLength === "number") s = s.max(schema.maxLength);
      if (typeof schema.pattern === "string") {
        try {
          s = s.regex(new RegExp(schema.pattern, "u"));
        } catch {
          refuse(path, `the pattern ${JSON.stringify(schema.pattern)} is not a valid regular expression here`);
        }
      }
      result = s;
      break;
    }
    case "number":
    case "integer": {
      let n = type === "integer" ? z.number().int() : z.number();
      if (typeof schema.minimum === "number") n = n.min(schema.minimum);
      if (typeof schema.maximum === "number") n = n.max(schema.maximum);
      if (typeof schema.exclusiveMinimum === "number") n = n.gt(schema.exclusiveMinimum);
      if (typeof schema.exclusiveMaximum === "number") n = n.lt(schema.exclusiveMaximum);
      result = z.preprocess(fromText("number"), n);
      break;
    }
    case "boolean":
      result = z.preprocess(fromText("boolean"), z.boolean());
      break;
    case "null":
      result = z.null();
      break;
    case "array": {
      if (Array.isArray(schema.items)) refuse(path, "tuple `items` cannot be represented");
      let a = z.array(schema.items === undefined ? z.unknown() : convertNode(schema.items, `${path}[]`, depth + 1));
      if (typeof schema.minItems === "number") a = a.min(schema.minItems);
      if (typeof schema.maxItems === "number") a = a.max(schema.maxItems);
      result = z.preprocess(fromText("json"), a);
      break;
    }
    case "object":
      result = z.preprocess(fromText("json"), convertObject(schema, path, depth));
      break;
    default:
      refuse(path, type === undefined ? "no `type`" : `the type ${JSON.stringify(type)} is unknown`);
  }
  return nullable ? result.nullable() : result;
}

function convertObject(schema: Json, path: string, depth: number): z.ZodTypeAny {
  const properties = (schema.properties ?? {}) as Json;
  if (typeof properties !== "object" || Array.isArray(properties)) refuse(path, "`properties` is not an object");
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const [key, value] of Object.entries(properties)) {
    const field = convertNode(value, path ? `${path}.${key}` : key, depth + 1);
    shape[key] = required.has(key) ? field : field.optional();
  }
  const object = z.object(shape);
  const extra = schema.additionalProperties;
  if (extra === false) return object.strict();
  if (extra === undefined || extra === true) return object.loose();
  return object.catchall(convertNode(extra, `${path}.*`, depth + 1));
}

/**
 * An MCP tool's `inputSchema` (JSON Schema) as a zod schema that validates the model's
 * arguments, or a refusal with the reason (`aide mcp list` shows it). The JSON Schema the
 * catalog shows is the server's own, minus `$schema`.
 */
export function jsonSchemaToZod(inputSchema: unknown): Converted {
  try {
    const root = (inputSchema ?? { type: "object" }) as Json;
    if (root.type !== undefined && root.type !== "object") refuse("", `the arguments must be an object, not ${JSON.stringify(root.type)}`);
    for (const keyword of [...unsupported, "anyOf", "enum", "const"]) if (keyword in root) refuse("", `\`${keyword}\` at the top level cannot be represented in the catalog's schemas`);
    const schema = convertObject(root, "", 0);
    const { $schema: _ignored, ...jsonSchema } = root;
    return { ok: true, schema, jsonSchema: { type: "object", properties: {}, ...jsonSchema } };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    return { ok: false, reason: `the schema could not be read: ${(error as Error).message}` };
  }
}
