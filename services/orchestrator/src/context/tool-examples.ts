import type { ToolDescriptor } from "@aide/contracts";

/** Example values that show the model a realistic call, by tool and then by parameter name. */
const EXAMPLES_BY_TOOL: Record<string, Record<string, string>> = {
  read_file: { path: "src/index.ts" },
  list_dir: { path: "src" },
  search_files: { pattern: "parseConfig", path: "src" },
  write_file: { path: "src/hello.py", content: 'print("hello")' },
  replace_in_file: {
    path: "src/sum.js",
    diff: "<<<<<<< SEARCH\n  return a - b;\n=======\n  return a + b;\n>>>>>>> REPLACE",
  },
  apply_patch: { diff: "--- a/src/sum.js\n+++ b/src/sum.js\n@@ -1,3 +1,3 @@\n function sum(a, b) {\n-  return a - b;\n+  return a + b;\n }" },
  run_command: { command: "npm test" },
  process_start: { command: "npm run dev" },
  process_poll: { id: "p1" },
  process_cancel: { id: "p1" },
  attempt_completion: { result: "Fixed sum() in src/sum.js; `npm test` now passes (12 tests)." },
  switch_to_act_mode: { plan: "Fix sum() in src/sum.js, then run npm test.", reason: "Edit src/sum.js and run the tests." },
  update_plan: { items: "[completed] read the failing test\n[in_progress] fix sum()\n[pending] run the tests" },
  remember: { text: "The person prefers tabs for indentation." },
  recall: { query: "indentation" },
  forget: { id: "m1" },
  spawn_agent: { role: "reviewer", task: "Review src/parser for unhandled edge cases.", write: "false" },
};

const EXAMPLES_BY_PARAM: Record<string, string> = {
  path: "src/index.ts",
  content: "…",
  command: "npm test",
  pattern: "TODO",
  query: "…",
  result: "…",
  text: "…",
  id: "…",
};

type Parameters = { properties: Record<string, { description?: unknown }>; required: string[] };

export function schemaParameters(tool: ToolDescriptor): Parameters {
  const rawProperties = tool.parameters["properties"];
  const properties = rawProperties !== null && typeof rawProperties === "object" ? (rawProperties as Record<string, { description?: unknown }>) : {};
  const rawRequired = tool.parameters["required"];
  const required = Array.isArray(rawRequired) ? rawRequired.filter((entry): entry is string => typeof entry === "string") : [];
  return { properties, required };
}

/** Example values by tool and by parameter name, for one kind of example. */
export interface ExampleValues {
  byTool: Record<string, Record<string, string>>;
  byParam: Record<string, string>;
  fallback: string;
}

const REALISTIC: ExampleValues = { byTool: EXAMPLES_BY_TOOL, byParam: EXAMPLES_BY_PARAM, fallback: "…" };

/** One example call per tool: its required params, plus the curated optional ones for well-known tools. */
export function exampleCall(tool: ToolDescriptor, values: ExampleValues = REALISTIC): string {
  const { properties, required } = schemaParameters(tool);
  const curated = values.byTool[tool.name] ?? {};
  const params = Object.keys(properties).filter((name) => required.includes(name) || name in curated);
  const lines = params.map((name) => {
    const value = curated[name] ?? values.byParam[name] ?? values.fallback;
    return value.includes("\n") ? `<${name}>\n${value}\n</${name}>` : `<${name}>${value}</${name}>`;
  });
  return [`<${tool.name}>`, ...lines, `</${tool.name}>`].join("\n");
}

/** The tool's name, its first sentence of description, and its parameters, on two short lines. */
export function toolSummary(tool: ToolDescriptor): string {
  const { properties, required } = schemaParameters(tool);
  const firstSentence = tool.description.split(/(?<=\.)\s/)[0]?.slice(0, 200) ?? "";
  const params = Object.keys(properties).map((name) => (required.includes(name) ? `${name} (required)` : name));
  return `## ${tool.name}\n${firstSentence}${params.length > 0 ? `\nParameters: ${params.join(", ")}` : ""}`;
}
