import type { EvidenceEvent } from "./evidence-kind.js";
import { COMMAND_TOOLS, commandOf, normalizePath, succeeded } from "./event-facts.js";
import { outputContainsNumber } from "./measurements.js";

/**
 * The answer audit: the specific names and numbers an answer to a question about the workspace
 * states must come from what this run read or ran. A successful command is not evidence for an
 * answer (measured: Qwen2.5-Coder-1.5B, asked which variable sets a server's port, ran
 * `echo $SOME_PORT`, got an empty output with exit 0, and answered "8080 by default if $SOME_PORT
 * is not set"; neither appears anywhere in the project). Neither is the question's wording: a name
 * the person wrote needs no backing, and backs nothing.
 *
 * What counts as specific is deliberately narrow, so ordinary English is never asked for proof:
 * identifiers with an underscore (`APP_PORT`, `base_port`), variables written as variables
 * (`$PORT`, `${PORT}`, `%PORT%`, `process.env.PORT`), names called as functions (`port()`),
 * camelCase names (`isValidEmail`), file names with a known extension (`settings.py`), other
 * mixed-case or all-capital names inside backticks or alone in quotes (`'PORT'`)
 * (`HTTPServer`, `PORT`), and numbers of two or more digits (`8421`, `3.5`). A number is also backed
 * when simple arithmetic on two numbers the run saw gives it (`8400 + 21` read, `8421` answered).
 */
export type AnswerToken = { kind: "name" | "file" | "number"; text: string };

/** What the run saw: each tool result's whole output, with what it cannot vouch for. */
export type AnswerSource = {
  text: string;
  /** Names the call itself wrote (its command, its path): its output echoing them proves nothing. */
  ownWords?: string;
};

const EXTENSIONS =
  "[cm]?[jt]sx?|json|md|markdown|txt|py|go|rs|rb|java|kt|kts|c|h|cc|cpp|hpp|cs|swift|php|sh|bash|zsh|ya?ml|toml|ini|cfg|conf|html?|css|scss|sass|less|vue|svelte|sql|lock|xml|csv|env|gradle|lua|dart|exs?|jl|scala|pl|ps1|rst|adoc|mk|proto|graphql";
const FILE = new RegExp(`(?<![\\w@.$/-])((?:[\\w@.-]+\\/)*[\\w@-][\\w@.-]*\\.(?:${EXTENSIONS}))(?![\\w/-])`, "g");
/** `Node.js`, `Vue.js`: product names, not files (a file name is written in lower case or in backticks). */
const PRODUCT_NAME = /^[A-Z][a-z]+\.js$/;
const VARIABLE = /(?:\$\{?|%|process\.env\.|os\.environ\[["']|getenv\(["']|os\.Getenv\(["']|ENV\[["'])([A-Za-z_][A-Za-z0-9_]*)/g;
const UNDERSCORED = /(?<![\w$])(_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*)(?!\w)/g;
/** `port()` names a function; `file(s)` and `value(es)` are English plurals. */
const CALLED = /(?<![\w$.])([A-Za-z_][A-Za-z0-9_]{2,})\((?!e?s\))/g;
/** Language builtins an answer may call in an example of its own (`print(settings.port())`): not claims about the workspace. */
const BUILTIN_CALLS = new Set(
  "print len str int float bool range list dict set tuple open input type sorted map filter zip sum min max abs round isinstance repr format exit require import parseInt parseFloat String Number Boolean Array Object Promise Date Error fetch setTimeout console".split(
    " ",
  ),
);
const CODE_SPAN = /`([^`\n]{1,200})`/g;
/** A single name in quotes is written as code too (`'PORT'`, `"APP_PORT"`). */
const QUOTED_NAME = /(?<![\w])(['"‘“])([A-Za-z_][A-Za-z0-9_.]{1,60})(['"’”])(?![\w])/g;
const MIXED_OR_CAPS = /(?<![\w$])([A-Za-z][A-Za-z0-9]*)(?!\w)/g;
/** camelCase anywhere (`isValidEmail`): English has almost no such words; these few brand names are the exceptions. */
const CAMEL = /(?<![\w$.-])([a-z]+[A-Z][A-Za-z0-9]*)(?![\w-])/g;
const CAMEL_WORDS = new Set(["iphone", "ipad", "ios", "ipados", "macos", "watchos", "tvos", "icloud", "ebay", "itunes", "imac"]);
/**
 * Numbers of two or more digits or with decimals (versions and addresses whole: `127.0.0.1`),
 * with a unit after them allowed (`30s`, `512MB`); line numbers and list markers are not claims.
 */
const NUMBER = /(?<![\w.$#-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)*)(?=(?:ms|s|m|h|kb|mb|gb|k|px|%)?(?![\w.]\w|\w))/gi;
const LINE_BEFORE = /\b(?:lines?|l|ll\.?|line numbers?)\s*$/i;

function isMixedOrCaps(word: string): boolean {
  const upper = word.replace(/[^A-Z]/g, "").length;
  const lower = word.replace(/[^a-z]/g, "").length;
  if (lower === 0) return upper >= 3 && /^[A-Z]/.test(word);
  return /^[a-z]+[A-Z]/.test(word) || upper >= 2;
}

/** The specific names and numbers `answer` states (see the file's header), each once. */
export function answerTokens(answer: string): AnswerToken[] {
  const found = new Map<string, AnswerToken>();
  const add = (kind: AnswerToken["kind"], text: string) => {
    const key = `${kind}:${text.toLowerCase()}`;
    if (!found.has(key)) found.set(key, { kind, text });
  };
  const withoutMarkers = answer.replace(/^\s*(?:\d+[.)]|[-*])\s/gm, " ");
  for (const match of withoutMarkers.matchAll(FILE)) {
    const inCode = /`[^`\n]*$/.test(withoutMarkers.slice(0, match.index));
    if (!inCode && PRODUCT_NAME.test(match[1])) continue;
    add("file", match[1]);
  }
  const withoutFiles = withoutMarkers.replace(FILE, " ");
  for (const pattern of [VARIABLE, UNDERSCORED]) for (const match of withoutFiles.matchAll(pattern)) add("name", match[1]);
  for (const match of withoutFiles.matchAll(CALLED)) if (!BUILTIN_CALLS.has(match[1])) add("name", match[1]);
  for (const match of withoutFiles.matchAll(CAMEL)) if (!CAMEL_WORDS.has(match[1].toLowerCase())) add("name", match[1]);
  const spans = [...[...withoutFiles.matchAll(CODE_SPAN)].map((span) => span[1]), ...[...withoutFiles.matchAll(QUOTED_NAME)].map((span) => span[2])];
  for (const span of spans) {
    for (const match of span.matchAll(MIXED_OR_CAPS)) if (isMixedOrCaps(match[1])) add("name", match[1]);
  }
  for (const match of withoutFiles.matchAll(NUMBER)) {
    const text = match[1].replace(/,/g, "");
    const at = match.index ?? 0;
    if (LINE_BEFORE.test(withoutFiles.slice(Math.max(0, at - 20), at))) continue;
    if (!text.includes(".") && text.length < 2) continue;
    add("number", text);
  }
  return [...found.values()];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function nameIn(text: string, name: string, caseSensitive = false): boolean {
  return new RegExp(`(?<![A-Za-z0-9_])${escape(name)}(?![A-Za-z0-9_])`, caseSensitive ? "" : "i").test(text);
}

/** A file is named when its last segment is (the run may have read it under another folder). */
function fileIn(text: string, file: string): boolean {
  const base = normalizePath(file).split("/").pop() ?? file;
  return new RegExp(`(?<![\\w@.-])${escape(base)}(?![\\w-]|\\.\\w)`, "i").test(text);
}

function numberIn(text: string, number: string): boolean {
  if ((number.match(/\./g) ?? []).length >= 2) return new RegExp(`(?<![\\d.])${escape(number)}(?![\\d]|\\.\\d)`).test(text);
  return outputContainsNumber(text, number);
}

function tokenIn(text: string, token: AnswerToken): boolean {
  if (token.kind === "number") return numberIn(text, token.text);
  return token.kind === "file" ? fileIn(text, token.text) : nameIn(text, token.text);
}

/** At most this many distinct numbers of the sources take part in the arithmetic check. */
const maxOperands = 400;

/** True when a + b, a − b, a × b or a ÷ b of two numbers the run saw is `number`. */
function derivable(number: string, sources: AnswerSource[]): boolean {
  if ((number.match(/\./g) ?? []).length >= 2) return false;
  const target = Number(number);
  if (!Number.isFinite(target)) return false;
  const operands = new Set<number>();
  for (const source of sources) {
    for (const match of source.text.matchAll(/(?<![\w.])\d+(?:\.\d+)?(?![\w.]\w|\w)/g)) {
      operands.add(Number(match[0]));
      if (operands.size >= maxOperands) break;
    }
  }
  const values = [...operands];
  const near = (value: number) => Math.abs(value - target) <= 1e-9 * Math.max(1, Math.abs(target));
  for (let left = 0; left < values.length; left += 1) {
    for (let right = left; right < values.length; right += 1) {
      const a = values[left];
      const b = values[right];
      if (near(a + b) || near(a * b) || near(Math.abs(a - b)) || (b !== 0 && near(a / b)) || (a !== 0 && near(b / a))) return true;
    }
  }
  return false;
}

/** Programs whose output shows the workspace's own text, so a name they print is in the workspace even when the command named it (`grep -rn APP_PORT .`). */
const READING_PROGRAMS = /^(?:grep|egrep|fgrep|rg|ag|ack|git|find|fd|cat|head|tail|sed|awk|less|more|nl|ls|tree|strings|wc|diff|file|stat|jq|yq)$/;

function programOf(command: string): string {
  const first =
    command
      .replace(/^(?:\s*cd\s+[^&;]+(?:&&|;))+/, "")
      .trim()
      .split(/\s+/)[0] ?? "";
  return first.split("/").pop() ?? "";
}

/**
 * The sources an answer may come from: every result of the run that ran (a failure's output too: a
 * traceback is real text), and the paths of the files it read or listed. What a call's output
 * says about the words of the call itself counts only for programs that print the workspace's
 * text (`grep`, `cat`), never for one that can print its own arguments (`echo $SOME_PORT`, a
 * failing `cat config.py` saying the file is missing).
 */
export function answerSources(events: EvidenceEvent[], fullOutput: (event: EvidenceEvent) => string): AnswerSource[] {
  const sources: AnswerSource[] = [];
  for (const event of events) {
    const output = fullOutput(event);
    const command = commandOf(event);
    const path = typeof event.args["path"] === "string" ? (event.args["path"] as string) : undefined;
    const vouches = succeeded(event) && (command === undefined ? true : READING_PROGRAMS.test(programOf(command)));
    const ownWords = vouches ? undefined : [command, path].filter((word): word is string => word !== undefined).join("\n");
    sources.push({ text: output, ...(ownWords ? { ownWords } : {}) });
    if (path !== undefined && succeeded(event) && !COMMAND_TOOLS.has(event.tool)) sources.push({ text: path });
  }
  return sources;
}

export type AnswerAudit = { tokens: AnswerToken[]; unbacked: AnswerToken[] };

/**
 * Checks each specific name and number of `answer` against `sources`. Tokens the task itself
 * contains are the person's words: they need no backing (and back nothing).
 */
export function auditAnswer(answer: string, task: string, sources: AnswerSource[]): AnswerAudit {
  // As the person spelled it: "the port" in the question does not make the name `PORT` theirs.
  const tokens = answerTokens(answer).filter((token) => !(token.kind === "name" ? nameIn(task, token.text, true) : tokenIn(task, token)));
  const unbacked = tokens.filter((token) => {
    const seen = sources.some((source) => tokenIn(source.text, token) && (source.ownWords === undefined || !tokenIn(source.ownWords, token)));
    if (seen) return false;
    return !(
      token.kind === "number" &&
      derivable(
        token.text,
        sources.filter((source) => source.ownWords === undefined || !/\d/.test(source.ownWords)),
      )
    );
  });
  return { tokens, unbacked };
}
