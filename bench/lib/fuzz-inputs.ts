import { posix } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { AideError, toolArgumentAliases } from "@aide/contracts";
import { orchestratorTools, parseToolCalls, toParserSpecs } from "@aide/orchestrator";
import { allTools, checkPathSyntax, describeTool, isInside, normalizeArguments } from "@aide/tools";
import { claim, type FuzzTarget } from "./fuzz-runner.js";

const tools = allTools();
const descriptors = [...tools.map(describeTool), ...orchestratorTools];
const specs = toParserSpecs(descriptors);
/** Every tag name the parser treats as structure: tools, params and their aliases. */
const structuralNames = new Set(specs.flatMap((spec) => [spec.name, ...spec.params, ...Object.keys(spec.aliases ?? {})]).map((name) => name.toLowerCase()));

/** Pieces a model's reply is made of, structural and not. */
const replyPieces = [
  "<read_file>",
  "</read_file>",
  "<path>",
  "</path>",
  "<write_file>",
  "</write_file>",
  "<content>",
  "</content>",
  "<run_command>",
  "</run_command>",
  "<command>",
  "</command>",
  "<write_to_file>",
  "<file_path>",
  "</file_path>",
  "<unknown_tool>",
  "</unknown_tool>",
  "<git_status/>",
  "<think>",
  "</think>",
  "Array<string>",
  "<<<<<<< SEARCH",
  "=======",
  ">>>>>>> REPLACE",
  "```",
  "`",
  "\n",
  "\r\n",
  " ",
  "text",
  "a.ts",
  "<",
  ">",
  "</",
  "<div>",
  "</ write_file>",
  "<READ_FILE>",
  "<attempt_completion>",
  "</attempt_completion>",
  "<result>",
  "</result>",
  "<tool_result>",
  "\u202e",
  "\u0000",
];

const replyArb = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...replyPieces) }, { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: "binary" }) }), { maxLength: 40 })
  .map((parts) => parts.join(""));

/** A parameter value: code and prose, `<` and `>` included, but no tag the parser reads as structure. */
const valueArb = fc
  .array(fc.constantFrom("a", "b", " ", "\n", "\t", "<", ">", "/", "x < y", "Array<string>", "<div>", "</div>", "=>", "`", "```", "é", "\u00a0", "{", "}", '"', "&lt;"), { maxLength: 12 })
  .map((parts) => parts.join(""))
  .filter((value) => ![...value.matchAll(/<\/?\s*([A-Za-z_][\w-]*)/g)].some((match) => structuralNames.has(match[1].toLowerCase())));

/** Prose around calls: no `<` (a tag) and no backtick next to a tag (inline code is not a call). */
const proseArb = fc.string({ maxLength: 30, unit: fc.constantFrom("I", " ", "will", "read", ".", "\n", "é", "🙂", ":", "-") });

const callArb = fc
  .constantFrom(...specs.filter((spec) => spec.params.length > 0))
  .chain((spec) =>
    fc.record({
      spec: fc.constant(spec),
      params: fc.shuffledSubarray(spec.params, { minLength: spec.params.length }).chain((all) => fc.subarray(all).map((optional) => [...new Set([...spec.required, ...optional])])),
      values: fc.array(valueArb, { minLength: spec.params.length, maxLength: spec.params.length }),
      newlines: fc.boolean(),
    }),
  )
  .map(({ spec, params, values, newlines }) => {
    const args: Record<string, string> = {};
    const body = params.map((param, index) => {
      args[param] = values[index];
      return newlines ? `<${param}>\n${values[index]}\n</${param}>` : `<${param}>${values[index]}</${param}>`;
    });
    return { name: spec.name, args: newlines ? args : Object.fromEntries(Object.entries(args).map(([k, v]) => [k, trimOneNewline(v)])), text: `<${spec.name}>\n${body.join("\n")}\n</${spec.name}>` };
  });

/** The parser's documented reading of a value: one leading and one trailing line break removed. */
function trimOneNewline(value: string): string {
  return value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}

const toolCallParserTarget: FuzzTarget = {
  name: "tool-call-parser",
  subject: "parseToolCalls, the orchestrator's XML tool-call parser, over the real catalog's specs",
  properties: [
    claim(
      "arbitrary reply",
      "any reply: no throw, calls numbered in order, each call's raw text a slice of the reply in order, required params present",
      fc.property(replyArb, (reply) => {
        const result = parseToolCalls(reply, specs);
        let from = 0;
        result.calls.forEach((call, index) => {
          if (call.index !== index) throw new Error(`call ${index} has index ${call.index}`);
          const at = reply.indexOf(call.raw, from);
          if (at < 0) throw new Error(`raw ${JSON.stringify(call.raw)} is not in the reply after ${from}`);
          from = at + call.raw.length;
          for (const required of specs.find((spec) => spec.name === call.name)?.required ?? []) {
            if (!(required in call.arguments)) throw new Error(`${call.name} without its required ${required}`);
          }
        });
      }),
    ),
    claim(
      "well-formed calls",
      "calls written correctly between prose are read back: the same tools, in order, with exactly the values written",
      fc.property(fc.array(fc.tuple(proseArb, callArb), { minLength: 1, maxLength: 3 }), proseArb, (parts, tail) => {
        const reply = parts.map(([prose, call]) => `${prose}\n${call.text}`).join("\n") + `\n${tail}`;
        const result = parseToolCalls(reply, specs);
        const got = result.calls.map((call) => ({ name: call.name, args: call.arguments }));
        const want = parts.map(([, call]) => ({ name: call.name, args: call.args }));
        if (!isDeepStrictEqual(got, want) || result.errors.length > 0) throw new Error(`read ${JSON.stringify(got)} errors ${JSON.stringify(result.errors)}`);
      }),
    ),
  ],
};

/** Argument names a model sends: real ones, aliases, other cases, prototype names, anything. */
function keyArb(accepted: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...accepted) },
    { weight: 2, arbitrary: fc.constantFrom(...Object.keys(toolArgumentAliases)) },
    { weight: 1, arbitrary: fc.constantFrom(...accepted).map((name) => name.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype") },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
}

const argumentValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("", " ", "\n", "src/a.ts", "1", "-1", "true", "false", "null", "1e3", "0x10", "NaN", "a\u0000b", "../x", "/etc/passwd"),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);

/** Each tool with the argument names its schema accepts. */
const toolsWithNames = tools.map((tool) => ({ tool, accepted: Object.keys((describeTool(tool).parameters as { properties?: Record<string, unknown> }).properties ?? {}) }));

const argumentsTarget: FuzzTarget = {
  name: "argument-normaliser",
  subject: "normalizeArguments (services/tools/src/framework) over every tool of the catalog",
  properties: [
    claim(
      "any arguments",
      "any argument object: no throw; accepted arguments hold only the tool's own names, validate, and normalise to themselves again",
      fc.property(
        fc
          .constantFrom(...toolsWithNames)
          .chain(({ tool, accepted }) => fc.tuple(fc.constant(tool), fc.constant(accepted), fc.array(fc.tuple(keyArb(accepted.length > 0 ? accepted : ["x"]), argumentValueArb), { maxLength: 5 }))),
        ([tool, accepted, entries]) => {
          // JSON.parse builds the arguments a call brings: a `__proto__` key is an own key there.
          const raw = JSON.parse(JSON.stringify(Object.fromEntries(entries))) as Record<string, unknown>;
          for (const [key, value] of entries) if (key === "__proto__") Object.defineProperty(raw, key, { value, enumerable: true, writable: true, configurable: true });
          const first = normalizeArguments(tool, raw);
          if (!first.ok) return;
          const stray = Object.keys(first.args).filter((key) => !accepted.includes(key));
          if (stray.length > 0) throw new Error(`accepted unknown argument(s) ${stray.join(", ")}`);
          if (Object.getPrototypeOf(first.args) !== Object.prototype) throw new Error("the accepted arguments' prototype was replaced");
          const again = normalizeArguments(tool, first.args);
          if (!again.ok || !isDeepStrictEqual(again.args, first.args)) throw new Error(`not stable: ${again.ok ? JSON.stringify(again.args) : again.error}`);
        },
      ),
    ),
  ],
};

const pathPieces = ["a", "b", "..", ".", "", "src", "~", "~user", "C:", "c:", "file:", "http://x", "a\\b", "\u0000", " ", "é", "e\u0301", "\u202e", "/", "//", ".aide", "%2e%2e"];

const pathSyntaxTarget: FuzzTarget = {
  name: "path-syntax",
  subject: "checkPathSyntax and isInside (services/tools/src/jail): the jail's checks before and after any walk",
  properties: [
    claim(
      "syntax check",
      "any path: accepted, or refused with PATH_INVALID (never another error); an accepted path has no NUL, backslash, leading ~, URL, drive letter, and is 1..4096 characters and not blank",
      fc.property(
        fc.oneof(
          fc.array(fc.constantFrom(...pathPieces), { maxLength: 8 }).map((parts) => parts.join("/")),
          fc.string({ maxLength: 40, unit: "binary" }),
          fc.string({ minLength: 4090, maxLength: 4100 }),
        ),
        (input) => {
          try {
            checkPathSyntax(input);
          } catch (error) {
            if (error instanceof AideError && error.code === "PATH_INVALID") return;
            throw error;
          }
          const wrong = [
            input.includes("\0") && "NUL",
            input.includes("\\") && "backslash",
            input.startsWith("~") && "~",
            /^[a-z][a-z0-9+.-]*:\/\//i.test(input) && "URL",
            /^file:/i.test(input) && "file:",
            /^[a-z]:/i.test(input) && "drive letter",
            input.trim() === "" && "blank",
            input.length > 4096 && "too long",
          ].filter(Boolean);
          if (wrong.length > 0) throw new Error(`accepted a path with ${wrong.join(", ")}`);
        },
      ),
    ),
    claim(
      "inside check",
      "isInside(root, candidate) is true exactly when the candidate is the root or lies below it (a sibling sharing the root's name as a prefix is outside)",
      fc.property(
        fc.array(fc.constantFrom("w", "ws", "a b", "é"), { minLength: 1, maxLength: 3 }),
        fc.array(fc.constantFrom("a", "..", ".", "", "ws", "wsx", "w"), { maxLength: 6 }),
        fc.boolean(),
        (rootParts, relParts, sibling) => {
          const root = "/" + rootParts.join("/");
          const candidate = sibling ? root + relParts.join("") : posix.resolve(root, relParts.join("/"));
          const relative = posix.relative(root, candidate);
          const expected = relative === "" || (!relative.startsWith("..") && !posix.isAbsolute(relative));
          if (isInside(root, candidate) !== expected) throw new Error(`isInside(${root}, ${candidate}) is ${!expected}`);
        },
      ),
    ),
  ],
};

export const inputTargets: FuzzTarget[] = [toolCallParserTarget, argumentsTarget, pathSyntaxTarget];
