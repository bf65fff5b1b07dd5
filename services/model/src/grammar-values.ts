/**
 * GBNF for a parameter's value under the XML text protocol, from its JSON Schema. Two levels:
 * `typed` (enums, integers, numbers, booleans, short bounded strings; what the grammar always did)
 * and `strict` (the schema's own constraints as well: integer minimum/maximum as exact digit
 * ranges, no sign where the minimum is not negative, non-empty strings where minLength asks for
 * it), so a constrained call cannot carry `"max_entries":"-300000000000000"`. Strict also shapes
 * free text by its bound: a body (a file's content, a diff: maxLength above 16 K) is anything
 * but a closing tag; a bounded string (a path, a command, a pattern) is one line without `<`;
 * an unbounded one (a completion's result) is text without `<`. So the next `<` is the closing
 * tag, and a line's end closes a path or a command: small models otherwise open invented tags
 * inside a value (`<result><output><test_name>…`, with tag names refused `<#fail>`) or run on in
 * prose inside `<command>`, and never close the call (measured on SmolLM2-135M).
 */
export interface JsonSchemaLike {
  type?: string | string[];
  enum?: unknown[];
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  properties?: Record<string, JsonSchemaLike>;
  required?: string[];
  additionalProperties?: unknown;
  /** Argument sets (a union of objects): tool-call-grammar.ts gives each its own sequence. */
  anyOf?: JsonSchemaLike[];
}

/** GBNF string literal. */
export function literal(text: string): string {
  return JSON.stringify(text);
}

/**
 * The longest `{m,n}` repetition the grammar uses. llama.cpp expands a repetition into one rule
 * per step, so large counts make big, slow grammars, and some are refused outright (measured:
 * `[^<]{1,2000}` fails to parse while 1999 and 2001 pass). Longer strings use the free-text rule.
 */
export const boundedRepeatLimit = 256;

/** Integers the grammar spells digit by digit; beyond it, a bound is a digit count. */
const EXACT_LIMIT = 1e15;

const looseInteger = `("0" | "-"? [1-9] [0-9]{0,14})`;

function digits(from: string, to: string): string {
  return from === to ? literal(from) : `[${from}-${to}]`;
}

/** Decimal strings of one length from `low` to `high` (both that length, low <= high). */
function sameLength(low: string, high: string): string {
  if (low.length === 1) return digits(low, high);
  const restLength = low.length - 1;
  const lowRest = low.slice(1);
  const highRest = high.slice(1);
  if (low[0] === high[0]) return `${literal(low[0])} ${sameLength(lowRest, highRest)}`;
  const alternatives: string[] = [];
  const allZero = /^0+$/.test(lowRest);
  const allNine = /^9+$/.test(highRest);
  const first = Number(low[0]) + (allZero ? 0 : 1);
  const last = Number(high[0]) - (allNine ? 0 : 1);
  if (!allZero) alternatives.push(`${literal(low[0])} ${sameLength(lowRest, "9".repeat(restLength))}`);
  if (first <= last) alternatives.push(`${digits(String(first), String(last))} [0-9]{${restLength}}`);
  if (!allNine) alternatives.push(`${literal(high[0])} ${sameLength("0".repeat(restLength), highRest)}`);
  return alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(" | ")})`;
}

/** Non-negative integers from `low` to `high`, written without leading zeros. */
function naturalRange(low: number, high: number): string {
  const alternatives: string[] = [];
  const lowText = String(low);
  const highText = String(high);
  for (let length = lowText.length; length <= highText.length; length++) {
    const from = length === lowText.length ? lowText : `1${"0".repeat(length - 1)}`;
    const to = length === highText.length ? highText : "9".repeat(length);
    alternatives.push(sameLength(from, to));
  }
  return alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(" | ")})`;
}

/** An integer within the schema's minimum and maximum (bounds past 10^15 only limit the digit count). */
export function integerRule(minimum: number | undefined, maximum: number | undefined): string {
  const low = minimum === undefined || minimum < -EXACT_LIMIT ? undefined : Math.ceil(minimum);
  const high = maximum === undefined || maximum > EXACT_LIMIT ? undefined : Math.floor(maximum);
  if (low === undefined && high === undefined) return looseInteger;
  if (low !== undefined && high !== undefined && low > high) return looseInteger;
  const positive = (from: number, to: number | undefined) =>
    to === undefined
      ? `${from === 0 ? `("0" | [1-9] [0-9]{0,14})` : from <= 9 ? `([${from}-9] | [1-9] [0-9]{1,14})` : `(${naturalRange(from, 10 ** String(from).length - 1)} | [1-9] [0-9]{${String(from).length},14})`}`
      : naturalRange(from, to);
  const negative = (from: number, to: number | undefined) => `"-" ${positive(from, to)}`;
  if (low !== undefined && low >= 0) return positive(low, high);
  if (high !== undefined && high < 0) return negative(-high, low === undefined ? undefined : -low);
  // The range spans zero: negatives down to the minimum, then zero up to the maximum.
  return `(${negative(1, low === undefined ? undefined : -low)} | ${positive(0, high)})`;
}

/** Strings longer than this (by their maxLength) are bodies: a file's content, a diff. */
const BODY_LENGTH = 16_384;

/** The free-text rules the values use (tool-call-grammar.ts adds them to every grammar). */
export const freeTextRules = [`textchar ::= [^<] | "<" [^/<]`, `text ::= textchar*`, `plainchar ::= [^<]`, `visible ::= [^< \\t\\n]`, `plain ::= plainchar*`];

export type ValueLevel = "typed" | "strict";

/** A GBNF character-class member for a tag-name character or `>` (`-` spelled as an escape). */
function classChar(char: string): string {
  return char === "-" ? "\\x2D" : char;
}

/** The rule name of a body that cannot contain `</name>` (bodyRules defines it). */
export function bodyRuleName(name: string): string {
  // Rule names fold case and punctuation; tag names do not (`a_b`, `a-b`, `A_b` close differently), so those are spelled in hex.
  return /^[a-z0-9]+$/.test(name) ? `body-${name}` : `body-x${Buffer.from(name).toString("hex")}`;
}

/**
 * A body value (a file's content, SEARCH/REPLACE blocks, a patch) under the strict grammar: any
 * text that does not contain its own closing tag `</name>`. A small automaton, one rule per
 * matched prefix of the tag: a mismatch goes back to the start, another `<` to one matched
 * character, the whole tag is never completed. So `<<<<<<< SEARCH`, `</div>` or `a < b` stay
 * writable (the `text` rule refuses `<<` and every `</`), and the first `</name>` is the close.
 * Rules `body-NAME` (may be empty) and `body-NAME-1` (at least one character).
 */
export function bodyRules(name: string): string[] {
  const tag = `</${name}>`;
  const base = bodyRuleName(name);
  const state = (k: number) => `${base}-s${k}`;
  const lines = [`${base} ::= ${state(0)}`, `${base}-1 ::= [^<] ${state(0)} | "<" ${state(1)}`];
  for (let k = 0; k < tag.length; k++) {
    const alternatives = [`""`];
    if (k === 0) alternatives.push(`[^<] ${state(0)}`, `"<" ${state(1)}`);
    else {
      alternatives.push(`[^<${classChar(tag[k])}] ${state(0)}`, `"<" ${state(1)}`);
      if (k + 1 < tag.length) alternatives.push(`${literal(tag[k])} ${state(k + 1)}`);
    }
    lines.push(`${state(k)} ::= ${alternatives.join(" | ")}`);
  }
  return lines;
}

/** The rule name of a body of at most `maxChars` characters (boundedBodyRules defines it). */
export function boundedBodyRuleName(name: string, maxChars: number): string {
  return `${bodyRuleName(name)}-n${maxChars}`;
}

/**
 * A body of at most `maxChars` characters that cannot contain its own closing tag `</name>`.
 * Two states per count of characters left: `a` (free text) and `b` (right after a `<`); a `/`
 * after a `<` starts an attempt at the tag that ends before completing it (a character that
 * breaks the match, another `<`, or the end of the value), counted at its longest (the tag's
 * length less one) so the count never undercounts. So `2 × (maxChars + 1)` rules plus three
 * chains of the tag's length, not a rule per count and matched prefix. Rules `NAME-nN` (may be
 * empty) and `NAME-nN-1` (at least one character).
 *
 * What it guarantees: the value closes after at most `maxChars` characters, hence within that
 * many tokens of ordinary text (a token is at least one character). Where it does not: a
 * character the tokenizer splits into several byte tokens (multi-byte UTF-8 under a byte-level
 * or byte-fallback vocabulary) can take up to four tokens.
 */
export function boundedBodyRules(name: string, maxChars: number): string[] {
  const rest = `${name}>`;
  const base = boundedBodyRuleName(name, maxChars);
  const attempt = rest.length + 1; // "/" and a proper prefix of `name>` and the breaking character
  const a = (left: number) => `${base}-a${left}`;
  const b = (left: number) => `${base}-b${left}`;
  const lines = [`${base} ::= ${a(maxChars)}`, maxChars === 0 ? `${base}-1 ::= [^<]` : `${base}-1 ::= [^<] ${a(maxChars - 1)} | "<" ${b(maxChars - 1)}`];
  // The attempts at the tag after "</": to free text, to just-after-`<`, or to the value's end.
  const chain = (kind: string, stop: (j: number) => string) => {
    for (let j = 0; j < rest.length; j++) {
      const go = j + 1 < rest.length ? ` | ${literal(rest[j])} ${base}-${kind}${j + 1}` : "";
      lines.push(`${base}-${kind}${j} ::= ${stop(j)}${go}`);
    }
  };
  chain("ta", (j) => `[^<${classChar(rest[j])}]`);
  chain("tb", () => `"<"`);
  chain("te", () => `""`);
  lines.push(`${a(0)} ::= ""`, `${b(0)} ::= ""`);
  for (let left = 1; left <= maxChars; left++) {
    lines.push(`${a(left)} ::= "" | [^<] ${a(left - 1)} | "<" ${b(left - 1)}`);
    const tag = left >= attempt ? ` | "/" ${base}-ta0 ${a(left - attempt)} | "/" ${base}-tb0 ${b(left - attempt)} | "/" ${base}-te0` : "";
    lines.push(`${b(left)} ::= "" | "<" ${b(left - 1)} | [^</] ${a(left - 1)}${tag}`);
  }
  return lines;
}

/** The longest text a non-string value of this schema can take (digits, an enum, a boolean), or undefined for a string. */
export function valueWidth(schema: JsonSchemaLike): number | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return Math.max(...schema.enum.map((v) => String(v).length));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "integer") return 16;
  if (type === "number") return 27;
  if (type === "boolean") return 5;
  return undefined;
}

/**
 * The most characters a non-body string of this schema takes under the strict grammar with this
 * `maxChars` (what valueRule allows, its optional line breaks aside; callOverhead counts those).
 */
export function stringWidth(schema: JsonSchemaLike, maxChars: number | undefined): number {
  const min = Math.max(0, Math.floor(schema.minLength ?? 0));
  if (typeof schema.maxLength === "number") {
    const most = Math.max(1, Math.min(schema.maxLength, boundedRepeatLimit - 1, maxChars ?? Infinity));
    return Math.max(min, most);
  }
  return Math.max(1, Math.min(boundedRepeatLimit - 1, maxChars ?? boundedRepeatLimit - 1));
}

/** Whether the strict grammar treats a string of this schema as a body (unbounded text). */
export function isBody(schema: JsonSchemaLike): boolean {
  return typeof schema.maxLength === "number" && schema.maxLength > BODY_LENGTH;
}

/**
 * `maxChars` (strict only): the most characters the string may take, so a whole call fits the
 * reply's token budget (a token is at least one character; tool-call-grammar.ts shares the
 * budget among a call's strings, bodies included).
 */
export function valueRule(schema: JsonSchemaLike, level: ValueLevel, name?: string, maxChars?: number): string {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")) {
    return "(" + schema.enum.map((v) => literal(String(v))).join(" | ") + ")";
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "integer") return level === "strict" ? integerRule(schema.minimum, schema.maximum) : looseInteger;
  if (type === "number") {
    // With a bound, whole numbers within it (a subset of the valid values the grammar can spell exactly).
    if (level === "strict" && (typeof schema.minimum === "number" || typeof schema.maximum === "number")) return integerRule(schema.minimum, schema.maximum);
    return `("0" | "-"? [1-9] [0-9]{0,14}) ("." [0-9]{1,10})?`;
  }
  if (type === "boolean") return `("true" | "false")`;
  if (level === "strict" && (type === "string" || type === undefined)) {
    const limit = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
    const min = Math.max(0, Math.floor(schema.minLength ?? 0));
    // A body (a file's content, a diff) may hold anything but a closing tag.
    if (limit !== undefined && limit > BODY_LENGTH) {
      // Within a reply budget (maxChars), a body has its own count (tool-call-grammar.ts gives it what the call's other parts leave).
      if (name !== undefined && maxChars !== undefined) return min >= 1 ? `${boundedBodyRuleName(name, maxChars)}-1` : boundedBodyRuleName(name, maxChars);
      if (name !== undefined) return min >= 1 ? `${bodyRuleName(name)}-1` : bodyRuleName(name);
      return min >= 1 ? `textchar text` : "text";
    }
    if (limit !== undefined) {
      // A bounded string (a path, a command, a pattern, an id) is one line of at most the bound
      // (and at most boundedRepeatLimit characters), so the value closes within the token budget
      // and cannot outgrow its maxLength (measured: SmolLM2 ran on inside <command> to the cap).
      // The protocol strips one line break on each side, so those do not count.
      const most = Math.max(1, Math.min(limit, boundedRepeatLimit - 1, maxChars ?? Infinity));
      if (min > most) return `visible{${min}}`;
      const first = min >= 1 ? "visible " : "";
      const rest = min >= 1 ? `[^<\\n]{${min - 1},${most - 1}}` : `[^<\\n]{0,${most}}`;
      return `"\\n"? ${first}${rest} "\\n"?`;
    }
    // Unbounded (a completion's result): prose without tags; non-empty where the schema says so;
    // within the reply's budget when there is one (else SmolLM2 ran a <result> to the cap).
    if (maxChars !== undefined) {
      const most = Math.max(1, Math.min(boundedRepeatLimit - 1, maxChars));
      return min >= 1 ? `visible [^<]{0,${most - 1}}` : `[^<]{0,${most}}`;
    }
    return min >= 1 ? "visible plain" : "plain";
  }
  if (type === "string" && typeof schema.maxLength === "number" && schema.maxLength <= boundedRepeatLimit) {
    const min = Math.max(0, Math.min(schema.minLength ?? 1, schema.maxLength));
    return `[^<]{${min},${Math.max(min, schema.maxLength)}}`;
  }
  return "text";
}

/**
 * Whether a value of this schema can come out of the XML text protocol valid: the tools read a
 * parameter's text as a string, a number or a boolean, never as an array or an object, so the
 * strict grammar leaves such a parameter out when it is optional (measured: the shipped model's
 * replies under the typed grammar all ran to the cap inside `<code_map><focus_paths>`).
 */
export function textCanHold(schema: JsonSchemaLike): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  return types.length === 0 || types.some((type) => type !== "array" && type !== "object");
}

/**
 * Whether the strict grammar can spell only valid values of this schema: text-holdable, and no
 * `pattern` (a regular expression the grammar does not translate). The strict grammar leaves an
 * optional parameter out when it is not, so every call it allows passes the validator.
 */
export function expressible(schema: JsonSchemaLike): boolean {
  return textCanHold(schema) && schema.pattern === undefined;
}
