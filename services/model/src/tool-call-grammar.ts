import type { ChatTool } from "@aide/contracts";
import {
  bodyRuleName,
  bodyRules,
  boundedBodyRuleName,
  boundedBodyRules,
  boundedRepeatLimit,
  expressible,
  freeTextRules,
  isBody,
  literal,
  stringWidth,
  valueRule,
  valueWidth,
  type JsonSchemaLike,
} from "./grammar-values.js";

export { boundedRepeatLimit } from "./grammar-values.js";

/**
 * A GBNF grammar for the XML text tool-call protocol, built from the tool catalog: free prose,
 * then well-formed `<tool_name><param>value</param></tool_name>` blocks whose tool names and
 * parameters exist. Required parameters must appear (in schema order), optional ones may.
 * Values follow the parameter's JSON Schema where it is simple (enum, integer, number, boolean,
 * string with maxLength); anything else is text without a closing tag. With `schema` the values
 * also keep the schema's own bounds (integer ranges, non-empty strings: grammar-values.ts).
 *
 * A tool whose schema has `anyOf` argument sets (replace_in_file: `diff`, or `search` with
 * `replace`) gets one parameter sequence per set, so a call cannot mix or miss them.
 *
 * Scope `call` lets prose come before the call(s). Scope `reply` constrains the whole reply:
 * exactly one call and nothing around it when a call is required; with "auto", either prose
 * alone or exactly one call. (These options' defaults are the builder's; request-grammar.ts
 * picks the service's defaults: reply scope with the schemas' rules.)
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
  /** What the grammar covers: prose then calls (`call`), or the whole reply (`reply`). Builder default `call`. */
  scope?: GrammarScope;
  /** Encode the argument schemas' own rules (argument sets, ranges, string lengths). Builder default false. */
  schema?: boolean;
  /**
   * With `schema`: the reply's token budget. A call's tags, its values and its strings, bodies
   * included, then fit it (a token is at least one character of ordinary text), so a call always
   * closes before the cap (stringBudget).
   */
  maxReplyTokens?: number;
  /**
   * The `path` parameter of `tools` is one of `choices` (the workspace's files); that of
   * `newPathTools` one of them or a plain relative path (newPath). A choice the call's budget
   * for a one-line string cannot hold, or that is not plain text, is left out; with none left the
   * parameter keeps its schema's rule. The `path` of `directoryTools` is one of `directories`
   * (the workspace's folders, `.` for its root).
   */
  paths?: { choices: readonly string[]; tools: readonly string[]; newPathTools: readonly string[]; directories?: readonly string[]; directoryTools?: readonly string[] };
  /**
   * The `path` and `search` of `tool` are spelled together: one of `files`, then one of that
   * file's `lines` (each a literal, so the SEARCH text is always a line the file holds). Only the
   * argument set with `search` is kept. A file whose path is not plain text, and a line the
   * call's budget for a body cannot hold or that would close its own tag, is left out; with
   * nothing left the tool keeps its own rules. With `oneLine` (the line_edits strategy) the
   * parameter after `search` is one line that starts with the chosen line's indent.
   */
  edits?: { tool: string; files: readonly { path: string; lines: readonly string[] }[]; oneLine?: boolean };
  /** Spell only each call's required parameters (the lean_calls strategy): the optional ones take their defaults. */
  requiredOnly?: boolean;
}

/** A new file's path under path_grammar, at most `width` characters: relative, plain characters, not starting with `.`, `-` or `/`. */
const newPath = (width: number) => `[A-Za-z0-9_] [A-Za-z0-9_./-]{0,${Math.max(0, Math.min(159, width - 1))}}`;
/** Characters a path choice may hold (anything else could not be spelled back from the protocol's text unchanged). */
const PLAIN_CHOICE = /^[^\s<>&"]+$/;

/** The distinct values a one-line string of `width` characters can hold and the protocol's text carries back unchanged, as literals. */
const plainLiterals = (values: readonly string[], width: number): string[] => [...new Set(values)].filter((value) => value.length <= width && PLAIN_CHOICE.test(value)).map((value) => literal(value));

/** The path rule for a parameter under `paths`, or undefined when the parameter keeps its own. */
function pathRule(tool: string, param: CatalogParam, paths: ToolGrammarOptions["paths"], width: number): string | undefined {
  if (paths === undefined || param.name !== "path") return undefined;
  if (paths.directoryTools?.includes(tool) === true) {
    // A folder of the workspace, spelled as listed (`.` for the root); a trailing `/` is dropped.
    const folders = plainLiterals(
      (paths.directories ?? []).map((folder) => (folder.length > 1 ? folder.replace(/\/+$/, "") : folder)),
      width,
    );
    return folders.length === 0 ? undefined : `(${folders.join(" | ")})`;
  }
  const existing = paths.tools.includes(tool);
  const created = paths.newPathTools.includes(tool);
  if (!existing && !created) return undefined;
  const alternatives = plainLiterals(
    paths.choices.filter((choice) => !choice.endsWith("/")),
    width,
  );
  if (created) alternatives.push(`(${newPath(width)})`);
  if (alternatives.length === 0) return undefined;
  return `(${alternatives.join(" | ")})`;
}

/**
 * The anchored alternatives of an `edits` tool's set (path, search, then the set's other
 * parameters as `rest` spells them), or undefined when no file keeps a line. With `oneLine`
 * (the line_edits strategy) the parameter after `search` is not `rest`'s first rule but one line
 * that starts with the chosen line's own indent and is not that line (the tools service refuses a
 * REPLACE equal to its SEARCH), then `oneLine.after` (the set's remaining parameters); the rules
 * this needs go into `rules`.
 */
function anchoredEdits(
  edits: NonNullable<ToolGrammarOptions["edits"]>,
  pathWidth: number,
  searchWidth: number,
  rest: string,
  oneLine?: { name: string; body: number; after: string; rules: string[] },
): string | undefined {
  const alternatives: string[] = [];
  const tail = (text: string) => (text === "" ? "" : ` ${text}`);
  // One line: the line and its REPLACE share the body budget, half each (oneLineEdits).
  const width = oneLine === undefined ? searchWidth : Math.min(searchWidth, Math.floor(oneLine.body / 2));
  const lineEdits = oneLine === undefined ? undefined : oneLineEdits(oneLine.name, oneLine.body, oneLine.rules);
  for (const file of edits.files.slice(0, 16)) {
    if (file.path.length > pathWidth || !PLAIN_CHOICE.test(file.path)) continue;
    const lines = [...new Set(file.lines)].filter(
      (line) => line.trim() !== "" && line.length <= width && !line.includes("</search>") && !/[\r\n]/.test(line) && (lineEdits === undefined || !line.includes("</")),
    );
    if (lines.length === 0) continue;
    const head = `${literal(`<path>${file.path}</path>`)} nl ${literal("<search>")}`;
    if (lineEdits === undefined) {
      alternatives.push(`${head} (${lines.map((line) => literal(line)).join(" | ")}) ${literal("</search>")} nl${tail(rest)}`);
      continue;
    }
    alternatives.push(`${head} (${lines.map((line) => `${literal(line)} ${literal("</search>")} nl ${lineEdits(line)}${tail(oneLine!.after)}`).join(" | ")})`);
  }
  return alternatives.length === 0 ? undefined : `(${alternatives.join(" | ")})`;
}

/**
 * Most characters of SEARCH lines that get their own "not this line" rules (one rule a character;
 * measured: 8 files of 100 lines, ~15,000 characters, made the grammar 2 MB and llama.cpp's parse
 * of it ~0.1 s a request); past it, a line's REPLACE is any one line with its indent.
 */
const DISTINCT_LINE_CHARS = 8_000;

/** A character inside a GBNF class: letters, digits and spaces as they are, anything else as its code point. */
function classEscape(char: string): string {
  if (/^[A-Za-z0-9 ]$/.test(char)) return char;
  const hex = char.codePointAt(0)!.toString(16);
  return hex.length <= 4 ? `\\u${hex.padStart(4, "0")}` : `\\U${hex.padStart(8, "0")}`;
}

/**
 * The line_edits strategy's REPLACE rules: for a SEARCH line, `<name>`, the line's indent, then
 * one line of text that is not the rest of that line, `</name>`. "Not the line" is a chain with
 * one rule per character: the text may stop early, turn off at any character, or go on past the
 * line's end, but not end exactly where the line does. No line break and no `</` anywhere (so it
 * cannot close its own tag early); lines holding `</` are left out by the caller. Length: the
 * line is at most half the body budget and what follows a turn at most the other half, so the call
 * stays within its budget. Past DISTINCT_LINE_CHARS characters of lines, a line's REPLACE is any
 * such line after its indent (the tools service still refuses one equal to SEARCH).
 */
function oneLineEdits(name: string, body: number, rules: string[]): (line: string) => string {
  const steps = Math.max(1, Math.min(boundedRepeatLimit, Math.floor((Math.floor(body / 2) - 2) / 2)));
  const free = `one-line-${steps}`;
  rules.push(`${free} ::= ([^\\r\\n<] | "<" [^/\\r\\n<]){0,${steps}}`);
  let spent = 0;
  let count = 0;
  return (line) => {
    const indent = /^[ \t]*/.exec(line)![0];
    const text = [...line.slice(indent.length)];
    const open = literal(`<${name}>${indent}`);
    const close = literal(`</${name}>`);
    spent += text.length;
    if (spent > DISTINCT_LINE_CHARS) return `${open} ${free} ${close} nl`;
    const base = `line-edit-${(count += 1)}`;
    const rule = (k: number) => `${base}-${k}`;
    for (let k = 0; k <= text.length; k += 1) {
      const here = text[k] as string | undefined;
      // A turn is a character other than the line's own here; right after a '<' not '/' (that would open a closing tag).
      const banned = `\\r\\n<${k > 0 && text[k - 1] === "<" ? "/" : ""}${here !== undefined && here !== "<" ? classEscape(here) : ""}`;
      // A turn may be a '<' (and the character after it) unless the line itself has '<' here.
      const turn = `[^${banned}] ${free}${here === "<" ? "" : ` | "<" [^/\\r\\n<] ${free}`}`;
      rules.push(here === undefined ? `${rule(k)} ::= ${turn}` : `${rule(k)} ::= "" | ${turn} | ${literal(here)} ${rule(k + 1)}`);
    }
    return `${open} ${rule(0)} ${close} nl`;
  };
}

/** Characters a call of this argument set takes besides its strings: the tags, line breaks, and non-string values at their widest. */
function callOverhead(tool: string, set: CatalogParam[]): number {
  let chars = 2 + `<${tool}>\n</${tool}>`.length;
  for (const param of set) chars += `<${param.name}></${param.name}>\n`.length + 2 + (valueWidth(param.schema) ?? 0);
  return chars;
}

/**
 * What each string of a call's argument set may take within the reply's token budget: the
 * characters the tags and non-string values leave (less one for the end-of-generation token),
 * shared evenly among the strings as a cap; one-line strings take at most that (and their own
 * maxLength: a path's 160, a pattern's 120), and the bodies (a file's content, search and replace)
 * share what the one-line strings leave. So every reply the grammar allows is a complete call
 * within `maxReplyTokens` characters, hence tokens for ordinary text (see boundedBodyRules for
 * where a character can take more than one token).
 */
function stringBudget(tool: string, params: CatalogParam[], maxReplyTokens: number): { line: number; body: number } {
  const strings = params.filter((param) => valueWidth(param.schema) === undefined);
  const bodies = strings.filter((param) => isBody(param.schema));
  const total = Math.max(0, maxReplyTokens - callOverhead(tool, params) - 1);
  const line = strings.length > 0 ? Math.floor(total / strings.length) : total;
  const spent = strings.filter((param) => !isBody(param.schema)).reduce((sum, param) => sum + stringWidth(param.schema, line), 0);
  const body = bodies.length > 0 ? Math.max(0, Math.floor((total - spent) / bodies.length)) : 0;
  return { line, body };
}

export type GrammarScope = "call" | "reply";

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function ruleName(...parts: string[]): string {
  return parts.map((part) => part.toLowerCase().replace(/[^a-z0-9]+/g, "-")).join("-");
}

export interface CatalogParam {
  name: string;
  required: boolean;
  schema: JsonSchemaLike;
}

export interface CatalogEntry {
  name: string;
  /** Every parameter the tool has (the union of its argument sets). */
  params: CatalogParam[];
  /**
   * The schema's `anyOf` argument sets (replace_in_file: `path`+`diff`, or `path`+`search`+`replace`),
   * each with its own required keys and no other parameter; absent: `params` is the only set.
   */
  sets?: CatalogParam[][];
}

function paramsOf(schema: JsonSchemaLike, alsoRequired: string[] = []): CatalogParam[] {
  const required = new Set([...(schema.required ?? []), ...alsoRequired]);
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => NAME.test(name))
    .map(([name, propertySchema]) => ({ name, required: required.has(name), schema: propertySchema ?? {} }));
}

/** The tools and parameters the grammar and the parser accept (names that are valid XML tags). */
export function catalogEntries(tools: ChatTool[]): CatalogEntry[] {
  return tools
    .filter((tool) => NAME.test(tool.name))
    .map((tool) => {
      const schema = tool.parameters as JsonSchemaLike;
      const params = paramsOf(schema);
      const branches = (schema.anyOf ?? []).filter((branch) => branch.properties !== undefined);
      if (branches.length === 0) return { name: tool.name, params };
      // A closed branch (additionalProperties false, as zod renders a union of objects) is a whole
      // argument set; an open one adds its properties and required keys to the tool's own.
      const sets = branches.map((branch) => {
        const own = paramsOf(branch, schema.required ?? []);
        if (branch.additionalProperties === false) return own;
        const required = new Set([...(schema.required ?? []), ...(branch.required ?? [])]);
        const inherited = params.filter((param) => !own.some((mine) => mine.name === param.name)).map((param) => ({ ...param, required: required.has(param.name) }));
        return [...inherited, ...own];
      });
      return { name: tool.name, params, sets };
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
  const bodies = new Set<string>();
  lines.push(`call ::= ${toolRules.join(" | ")}`);
  for (const [index, entry] of entries.entries()) {
    // One sequence of parameter rules per argument set; a set that is the whole parameter list keeps the plain names.
    const sets = entry.sets ?? [entry.params];
    const built = sets.map((set, setIndex) => {
      const params = (options.schema ? set.filter((param) => param.required || expressible(param.schema)) : set).filter((param) => param.required || options.requiredOnly !== true);
      const budget = options.schema && options.maxReplyTokens !== undefined ? stringBudget(entry.name, params, options.maxReplyTokens) : undefined;
      const parts = params.map((param) => {
        const rule = unique(ruleName("param", entry.name, ...(sets.length > 1 ? [String(setIndex + 1)] : []), param.name));
        const lineChars = budget === undefined ? undefined : isBody(param.schema) ? budget.body : budget.line;
        const value = pathRule(entry.name, param, options.paths, stringWidth(param.schema, lineChars)) ?? valueRule(param.schema, options.schema ? "strict" : "typed", param.name, lineChars);
        // A body rule (anything but its own closing tag, or that within a count) is defined once per parameter name and count.
        const bodyRule = budget === undefined ? bodyRuleName(param.name) : boundedBodyRuleName(param.name, budget.body);
        if (value.startsWith(bodyRule) && !bodies.has(bodyRule)) {
          bodies.add(bodyRule);
          lines.push(...(budget === undefined ? bodyRules(param.name) : boundedBodyRules(param.name, budget.body)));
        }
        lines.push(`${rule} ::= ${literal(`<${param.name}>`)} ${value} ${literal(`</${param.name}>`)} nl`);
        return param.required ? rule : `${rule}?`;
      });
      return { params, budget, parts };
    });
    const sequences = built.map((set) => set.parts.join(" "));
    // The search_grammar strategy: only the set with `search`, its path and SEARCH text spelled as a read file and one of its lines.
    const withSearch = options.edits?.tool === entry.name ? built.find((set) => set.params[0]?.name === "path" && set.params[1]?.name === "search") : undefined;
    // The line_edits strategy: REPLACE (the set's third parameter) is one line, within the body budget.
    const oneLineRules: string[] = [];
    const oneLine =
      withSearch !== undefined && options.edits?.oneLine === true && withSearch.params.length >= 3
        ? { name: withSearch.params[2].name, body: withSearch.budget?.body ?? 4 * boundedRepeatLimit, after: withSearch.parts.slice(3).join(" "), rules: oneLineRules }
        : undefined;
    const anchored =
      withSearch === undefined
        ? undefined
        : anchoredEdits(
            options.edits!,
            stringWidth(withSearch.params[0].schema, withSearch.budget?.line),
            Math.min(withSearch.budget?.body ?? Infinity, withSearch.params[1].schema.maxLength ?? Infinity, 2000),
            withSearch.parts.slice(2).join(" "),
            oneLine,
          );
    if (anchored !== undefined) {
      // line_edits' rules are new to this grammar (one tool carries `edits`).
      lines.push(...oneLineRules);
      lines.push(`${toolRules[index]} ::= ${literal(`<${entry.name}>`)} nl ${anchored} ${literal(`</${entry.name}>`)}`);
      continue;
    }
    const body = sequences.length === 1 ? sequences[0] : `(${sequences.map((sequence) => sequence || '""').join(" | ")})`;
    lines.push(`${toolRules[index]} ::= ${literal(`<${entry.name}>`)} nl ${body} ${literal(`</${entry.name}>`)}`);
  }
  return lines.join("\n") + "\n";
}
