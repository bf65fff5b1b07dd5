import type { ToolSpecForParser } from "./tool-spec.js";
import { buildParserCatalog, type ParserCatalog, type ToolEntry } from "./parser-catalog.js";
import { CloseTagIndex } from "./close-tag-index.js";

/** One call found in a model message. `index` is its 0-based position among the parsed calls. */
export type ParsedToolCall = {
  name: string;
  arguments: Record<string, string>;
  raw: string;
  index: number;
};

/**
 * A problem the model must fix; `message` is written for the model to act on. `open`: the block
 * (and the parameter, when one was open) ran to the end of the text unclosed, what a reply cut at
 * the output limit looks like.
 */
export type ParseError = { tool?: string; message: string; open?: { tool: string; param?: string } };

export type ParseResult = { calls: ParsedToolCall[]; errors: ParseError[]; prose: string };

/** Tag names that look like tool blocks but are ordinary markup a model may quote in prose. */
const MARKUP_TAGS = new Set([
  "a",
  "b",
  "i",
  "p",
  "s",
  "u",
  "em",
  "strong",
  "code",
  "pre",
  "div",
  "span",
  "ul",
  "ol",
  "li",
  "dl",
  "dt",
  "dd",
  "table",
  "thead",
  "tbody",
  "tr",
  "td",
  "th",
  "html",
  "head",
  "body",
  "title",
  "meta",
  "link",
  "script",
  "style",
  "section",
  "article",
  "header",
  "footer",
  "nav",
  "main",
  "form",
  "input",
  "button",
  "label",
  "select",
  "option",
  "svg",
  "g",
  "path",
  "template",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "br",
  "hr",
  "img",
  "details",
  "summary",
  "thinking",
  "think",
  "reasoning",
  "mode_notice",
  "tool_result",
  "environment_details",
]);

/** Reasoning blocks some local models emit inline; an unclosed one runs to the end of the reply. */
const REASONING_TAGS = new Set(["think", "thinking", "reasoning"]);

/** Cline-style hints; the approval policy is computed by code, so these carry nothing. */
const IGNORED_PARAMS = new Set(["requires_approval", "task_progress"]);

const OPEN_TAG = /<([A-Za-z_][\w-]*)\s*(\/?)>/y;

/** What every step of one parse shares: the text, the catalog, and the index of closing tags. */
type Scan = { text: string; catalog: ParserCatalog; closes: CloseTagIndex };

/** Removes exactly one leading and one trailing line break; the rest of the value stays raw. */
function trimOneNewline(value: string): string {
  let result = value;
  if (result.startsWith("\r\n")) result = result.slice(2);
  else if (result.startsWith("\n")) result = result.slice(1);
  if (result.endsWith("\r\n")) result = result.slice(0, -2);
  else if (result.endsWith("\n")) result = result.slice(0, -1);
  return result;
}

function matchOpenTag(text: string, at: number): { name: string; selfClosing: boolean; end: number } | undefined {
  OPEN_TAG.lastIndex = at;
  const match = OPEN_TAG.exec(text);
  if (match === null) return undefined;
  return { name: match[1], selfClosing: match[2] === "/", end: OPEN_TAG.lastIndex };
}

function matchCloseTag(text: string, at: number, names: Set<string>): number | undefined {
  const match = /<\/\s*([A-Za-z_][\w-]*)\s*>/y;
  match.lastIndex = at;
  const found = match.exec(text);
  if (found === null || !names.has(found[1].toLowerCase())) return undefined;
  return match.lastIndex;
}

function skipWhitespace(text: string, at: number): number {
  let position = at;
  while (position < text.length && /\s/.test(text[position])) position += 1;
  return position;
}

type BlockOutcome = { kind: "call"; name: string; arguments: Record<string, string>; end: number } | { kind: "error"; error: ParseError; end: number } | { kind: "mention"; end: number };

/**
 * Finds where a param value ends. A value may itself contain `</content>` (a file about XML), so the
 * chosen close is the first one followed by another param, a new call, the tool's close (not itself
 * followed by a stray closer), or the end of text.
 */
function findParamClose(scan: Scan, from: number, paramTag: string, entry: ToolEntry): { valueEnd: number; end: number } | undefined {
  const { text, catalog } = scan;
  let first: { valueEnd: number; end: number } | undefined;
  for (const close of scan.closes.after(paramTag, from)) {
    const candidate = { valueEnd: close.start, end: close.end };
    first ??= candidate;
    const next = skipWhitespace(text, candidate.end);
    if (next >= text.length) return candidate;
    const toolEnd = matchCloseTag(text, next, entry.closeNames);
    if (toolEnd !== undefined) {
      // `</content></write_file></content>`: the first pair belonged to the value.
      const strayCloser = new Set([...entry.closeNames, paramTag.toLowerCase()]);
      if (matchCloseTag(text, skipWhitespace(text, toolEnd), strayCloser) === undefined) return candidate;
    }
    const open = matchOpenTag(text, next);
    if (open !== undefined && (entry.params.has(open.name.toLowerCase()) || catalog.tools.has(open.name.toLowerCase()))) {
      return candidate;
    }
  }
  return first;
}

function missingRequired(entry: ToolEntry, args: Record<string, string>): string[] {
  return entry.spec.required.filter((param) => !(param in args));
}

function unclosedParam(tool: string, param: string): ParseError {
  return { tool, message: `The <${param}> parameter of <${tool}> was not closed. End it with </${param}> and close the call with </${tool}>.`, open: { tool, param } };
}

/** Reads the params of one block in order, starting right after its opening tag. */
function parseBlock(scan: Scan, start: number, entry: ToolEntry): BlockOutcome {
  const { text, catalog } = scan;
  const tool = entry.spec.name;
  const args: Record<string, string> = {};
  let position = start;
  while (position < text.length) {
    position = text.indexOf("<", position);
    if (position === -1) break;
    const closeEnd = matchCloseTag(text, position, entry.closeNames);
    if (closeEnd !== undefined) return finishBlock(entry, withBareValue(entry, args, text.slice(start, position)), closeEnd);
    const open = matchOpenTag(text, position);
    if (open === undefined) {
      position += 1;
      continue;
    }
    const lowerName = open.name.toLowerCase();
    const param = entry.params.get(lowerName);
    if (param !== undefined) {
      if (open.selfClosing) {
        args[param] = "";
        position = open.end;
        continue;
      }
      const close = findParamClose(scan, open.end, open.name, entry);
      if (close === undefined) return { kind: "error", error: unclosedParam(tool, param), end: text.length };
      args[param] = trimOneNewline(text.slice(open.end, close.valueEnd));
      position = close.end;
      continue;
    }
    if (catalog.tools.has(lowerName)) {
      // "I'll use <read_file> now: <read_file>…": a tag with only prose before the next call names the tool.
      if (Object.keys(args).length === 0 && text.slice(start, position).trim() !== "") return { kind: "mention", end: position };
      return { kind: "error", error: unclosedBlock(tool), end: position };
    }
    const strayClose = scan.closes.next([lowerName], open.end);
    const toolClose = scan.closes.next(entry.closeNames, open.end);
    if (strayClose !== undefined && (toolClose === undefined || strayClose.start < toolClose.start)) {
      // An unlisted param is kept under its own name so validation can name it to the model;
      // habitual hints from other agents are display noise and are dropped.
      if (!IGNORED_PARAMS.has(lowerName)) args[open.name] = trimOneNewline(text.slice(open.end, strayClose.start));
      position = strayClose.end;
      continue;
    }
    position = open.end;
  }
  return { kind: "error", error: unclosedBlock(tool, true), end: text.length };
}

/**
 * `<run_command>npm test</run_command>`: a weak model's call without parameter tags. When the tool
 * has a single required parameter (or a single parameter), the bare text is that parameter.
 */
function withBareValue(entry: ToolEntry, args: Record<string, string>, inner: string): Record<string, string> {
  if (Object.keys(args).length > 0 || inner.trim() === "") return args;
  const { required, params } = entry.spec;
  const target = required.length === 1 ? required[0] : required.length === 0 && params.length === 1 ? params[0] : undefined;
  return target === undefined ? args : { [target]: trimOneNewline(inner) };
}

function unclosedBlock(tool: string, atEnd = false): ParseError {
  return { tool, message: `The <${tool}> block was not closed. Write the whole call again and end it with </${tool}>.`, ...(atEnd ? { open: { tool } } : {}) };
}

function finishBlock(entry: ToolEntry, args: Record<string, string>, end: number): BlockOutcome {
  const tool = entry.spec.name;
  const missing = missingRequired(entry, args);
  if (missing.length > 0) {
    const sent = Object.keys(args);
    const sentText = sent.length > 0 ? `you sent ${sent.map((name) => `<${name}>`).join(", ")}` : "you sent no parameters";
    return {
      kind: "error",
      error: { tool, message: `<${tool}> requires ${missing.map((name) => `<${name}>`).join(", ")}; ${sentText}.` },
      end,
    };
  }
  return { kind: "call", name: tool, arguments: args, end };
}

/** Where an attempted call to an unknown tool ends, or undefined when `<name>` is just markup in prose. */
function unknownCallEnd(scan: Scan, openEnd: number, name: string): number | undefined {
  const { text } = scan;
  if (MARKUP_TAGS.has(name.toLowerCase()) || !/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/i.test(name)) return undefined;
  const close = scan.closes.next([name], openEnd);
  if (close === undefined) return undefined;
  const child = matchOpenTag(text, skipWhitespace(text, openEnd));
  if (child === undefined && text.slice(openEnd, close.start).trim() !== "") return undefined;
  return close.end;
}

function isInsideInlineCode(text: string, at: number, end: number): boolean {
  return text[at - 1] === "`" && text[end] === "`";
}

/** Ranges of fenced code blocks (```), where unknown-tag detection is switched off. */
function fencedRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const fence = /^[ \t]*(```|~~~)/gm;
  let open: number | undefined;
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    if (open === undefined) open = match.index;
    else {
      ranges.push([open, fence.lastIndex]);
      open = undefined;
    }
  }
  if (open !== undefined) ranges.push([open, text.length]);
  return ranges;
}

/**
 * "I will use <read_file> next." names a tool without calling it: no close tag anywhere after it and
 * no parameter tag right after it. A truncated call (`<read_file>\n<path>x</path>`) is not a mention.
 */
function isBareMention(scan: Scan, openEnd: number, entry: ToolEntry): boolean {
  if (scan.closes.next(entry.closeNames, openEnd) !== undefined) return false;
  const next = skipWhitespace(scan.text, openEnd);
  if (next >= scan.text.length) return false;
  const child = matchOpenTag(scan.text, next);
  return child === undefined || !entry.params.has(child.name.toLowerCase());
}

/** The lookup per spec list (the turn step keeps one spec list per run catalog): built once, not per reply. */
const catalogs = new WeakMap<ToolSpecForParser[], ParserCatalog>();
function catalogOf(tools: ToolSpecForParser[]): ParserCatalog {
  let catalog = catalogs.get(tools);
  if (catalog === undefined) {
    catalog = buildParserCatalog(tools);
    catalogs.set(tools, catalog);
  }
  return catalog;
}

/**
 * Extracts XML tool calls from a MODEL message. Never give it tool output: tool results enter the
 * transcript wrapped as untrusted data and are not parsed. Single pass, index based: a known tool's
 * opening tag starts a block whose params are read in order, so code inside a value (`Array<string>`,
 * `<<<<<<< SEARCH`) is never mistaken for structure, and an unclosed block is reported as such rather
 * than as a stray unknown tag. Closing tags are indexed once, so degenerate replies stay cheap.
 */
export function parseToolCalls(text: string, tools: ToolSpecForParser[]): ParseResult {
  const scan: Scan = { text, catalog: catalogOf(tools), closes: new CloseTagIndex(text) };
  const calls: ParsedToolCall[] = [];
  const errors: ParseError[] = [];
  const proseParts: string[] = [];
  const fences = fencedRanges(text);
  const inFence = (at: number) => fences.some(([from, to]) => at >= from && at < to);
  let proseStart = 0;
  let position = 0;
  while (position < text.length) {
    const next = text.indexOf("<", position);
    if (next === -1) break;
    const open = matchOpenTag(text, next);
    if (open === undefined) {
      position = next + 1;
      continue;
    }
    if (REASONING_TAGS.has(open.name.toLowerCase()) && !open.selfClosing) {
      // Reasoning drafts calls and is never published: neither parsed nor kept as prose.
      proseParts.push(text.slice(proseStart, next));
      position = scan.closes.next([open.name], open.end)?.end ?? text.length;
      proseStart = position;
      continue;
    }
    const entry = scan.catalog.tools.get(open.name.toLowerCase());
    if (entry !== undefined && !isInsideInlineCode(text, next, open.end)) {
      if (!open.selfClosing && isBareMention(scan, open.end, entry)) {
        position = open.end;
        continue;
      }
      const outcome = open.selfClosing ? finishBlock(entry, {}, open.end) : parseBlock(scan, open.end, entry);
      if (outcome.kind === "mention") {
        position = outcome.end;
        continue;
      }
      proseParts.push(text.slice(proseStart, next));
      if (outcome.kind === "call") {
        calls.push({ name: outcome.name, arguments: outcome.arguments, raw: text.slice(next, outcome.end), index: calls.length });
      } else {
        errors.push(outcome.error);
      }
      position = outcome.end;
      proseStart = outcome.end;
      continue;
    }
    const unknownEnd = entry === undefined && !inFence(next) ? unknownCallEnd(scan, open.end, open.name) : undefined;
    if (unknownEnd !== undefined) {
      proseParts.push(text.slice(proseStart, next));
      errors.push({ message: `Unknown tool <${open.name}>. Use one of: ${scan.catalog.knownList}.` });
      position = unknownEnd;
      proseStart = unknownEnd;
      continue;
    }
    position = open.end;
  }
  proseParts.push(text.slice(proseStart));
  return {
    calls,
    errors,
    prose: proseParts
      .join("")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
  };
}
