import type { ChatTool } from "@aide/contracts";
import { freeTextRules, literal, textCanHold, valueRule, type JsonSchemaLike } from "./grammar-values.js";

export { boundedRepeatLimit } from "./grammar-values.js";

/**
 * A GBNF grammar for the XML text tool-call protocol, built from the tool catalog: free prose,
 * then well-formed `<tool_name><param>value</param></tool_name>` blocks whose tool names and
 * parameters exist. Required parameters must appear (in schema order), optional ones may.
 * Values follow the parameter's JSON Schema where it is simple (enum, integer, number, boolean,
 * string with maxLength); anything else is text without a closing tag. With `schema` the values
 * also keep the schema's own bounds (integer ranges, non-empty strings: grammar-values.ts).
 *
 * Scope `call` (the default) lets prose come before the call(s). Scope `reply` constrains the
 * whole reply: exactly one call and nothing around it when a call is required; with "auto",
 * either prose alone or exactly one call.
 *
 * The grammar is deliberately deterministic (every alternative starts with a distinct literal),
 * so llama.cpp keeps one or two parse stacks and the constraint costs little per token.
 */
export type ToolChoice = "auto" | "required" | "none";

export interface ToolGrammarOptions {
  choice: ToolChoice;
  /** Longest prose before the first call; default unbounded for "auto", 256 for "required". */
  maxProseChars?: number;
  /** Most calls in one reply; default 4. */
  maxCalls?: number;
  /** A thinking model may open with one `<think>…</think>` block. */
  thinking?: boolean;
  /** What the grammar covers: prose then calls (`call`), or the whole reply (`reply`). Default `call`. */
  scope?: GrammarScope;
  /** Encode the argument schemas' own constraints (ranges, non-empty strings). Default false. */
  schema?: boolean;
}

export type GrammarScope = "call" | "reply";

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function ruleName(...parts: string[]): string {
  return parts.map((part) => part.toLowerCase().replace(/[^a-z0-9]+/g, "-")).join("-");
}

export interface CatalogEntry {
  name: string;
  params: { name: string; required: boolean; schema: JsonSchemaLike }[];
}

/** The tools and parameters the grammar and the parser accept (names that are valid XML tags). */
export function catalogEntries(tools: ChatTool[]): CatalogEntry[] {
  return tools
    .filter((tool) => NAME.test(tool.name))
    .map((tool) => {
      const schema = tool.parameters as JsonSchemaLike;
      const required = new Set(schema.required ?? []);
      const params = Object.entries(schema.properties ?? {})
        .filter(([name]) => NAME.test(name))
        .map(([name, propertySchema]) => ({ name, required: required.has(name), schema: propertySchema ?? {} }));
      return { name: tool.name, params };
    });
}

export function buildToolCallGrammar(tools: ChatTool[], options: ToolGrammarOptions): string {
  const entries = catalogEntries(tools);
  const maxCalls = options.maxCalls ?? 4;
  const proseLimit = options.maxProseChars ?? (options.choice === "required" ? 256 : undefined);
  const lines: string[] = [];
  const prose = proseLimit === undefined ? `[^<]*` : `[^<]{0,${proseLimit}}`;
  const think = options.thinking ? "think " : "";
  if (options.thinking) lines.push(`think ::= ("<think>" ([^<] | "<" [^/])* "</think>" "\n"{0,2})?`);
  if (options.choice === "none" || entries.length === 0) {
    lines.unshift(`root ::= ${think}${prose}`);
    return lines.join("\n") + "\n";
  }
  if (options.scope === "reply") {
    // The whole reply: one call alone, or (when a call is not required) prose alone.
    lines.unshift(options.choice === "required" ? `root ::= ${think}ws call` : `root ::= ${think}(ws call | [^<]+)`);
    lines.push(`ws ::= [ \\n]{0,2}`);
  } else {
    const callsRule = `call (sep call){0,${Math.max(0, maxCalls - 1)}}`;
    lines.unshift(options.choice === "required" ? `root ::= ${think}prose ${callsRule}` : `root ::= ${think}prose (${callsRule})?`);
    lines.push(`prose ::= ${prose}`);
    lines.push(`sep ::= "\\n"{0,2}`);
  }
  lines.push(`nl ::= "\\n"?`);
  lines.push(...freeTextRules);
  // Rule names fold case and punctuation (`mcp__a-b__c` and `mcp__a__b_c` fold alike): a repeat gets a suffix.
  const used = new Set<string>();
  const unique = (base: string) => {
    let name = base;
    for (let n = 2; used.has(name); n += 1) name = `${base}-${n}`;
    used.add(name);
    return name;
  };
  const toolRules = entries.map((entry) => unique(ruleName("tool", entry.name)));
  lines.push(`call ::= ${toolRules.join(" | ")}`);
  for (const [index, entry] of entries.entries()) {
    const params = options.schema ? entry.params.filter((param) => param.required || textCanHold(param.schema)) : entry.params;
    const parts = params.map((param) => {
      const rule = unique(ruleName("param", entry.name, param.name));
      lines.push(`${rule} ::= ${literal(`<${param.name}>`)} ${valueRule(param.schema, options.schema ? "strict" : "typed")} ${literal(`</${param.name}>`)} nl`);
      return param.required ? rule : `${rule}?`;
    });
    lines.push(`${toolRules[index]} ::= ${literal(`<${entry.name}>`)} nl ${parts.join(" ")} ${literal(`</${entry.name}>`)}`);
  }
  return lines.join("\n") + "\n";
}
