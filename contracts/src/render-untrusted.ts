/**
 * The one rendering of untrusted text (command output, file content, model prose, proposed
 * command lines, file names) for a screen or a model. Pure: no I/O, no state.
 *
 * Every character that a terminal or a browser would act on instead of showing, and every
 * character a person cannot see, becomes a visible token such as `⟨ESC⟩`, `⟨CR⟩` or `⟨U+202E⟩`.
 * Once ESC and the C1 controls are tokens, the rest of an escape sequence (`]8;;http://…`,
 * `[2J`) is printable text and is shown as such, so an OSC 8 link, an OSC 52 clipboard write, a
 * screen clear or a cursor move reads as what it is and does nothing.
 *
 * Targets:
 * - `screen`: C0 controls except tab and newline, a carriage return not followed by a newline
 *   (it would let later text overwrite earlier text), DEL, C1, lone surrogates, and invisible
 *   characters (bidi controls, zero-width and other format characters, Unicode Tags, line and
 *   paragraph separators, the Hangul fillers and the combining grapheme joiner that print as
 *   nothing, Mongolian and supplementary variation selectors, which can carry hidden bytes, the
 *   format controls of Egyptian hieroglyphs, shorthand and musical notation, and the reserved
 *   default-ignorable code points U+FFF0–FFF8 and U+E0080–E0FFF, which fonts draw as nothing; the
 *   emoji variation selectors U+FE00–FE0F are left alone).
 * - `model`: the same controls as `screen` (C0 except tab and newline, a carriage return not
 *   followed by a newline, DEL, C1, lone surrogates): a model reads them as text, and a raw one in
 *   its input is a byte the person's transcript never showed. A CR before LF is a line end, kept
 *   for both targets. Invisible characters are left as they are (the tools service flags them with
 *   their positions instead), unless `invisible: true` is asked for.
 */

export type UntrustedCharacterKind = "escape" | "control" | "carriage_return" | "c1" | "bidi" | "zero_width" | "tag" | "invisible" | "surrogate";

export interface RenderTarget {
  target: "screen" | "model";
  /** Also escape invisible characters for the `model` target (always on for `screen`). */
  invisible?: boolean;
}

export interface RenderedText {
  text: string;
  /** How many characters were replaced by a visible token, by kind; empty when none were. */
  escaped: Partial<Record<UntrustedCharacterKind, number>>;
}

const controlNames: Record<number, string> = {
  0x00: "NUL",
  0x01: "SOH",
  0x02: "STX",
  0x03: "ETX",
  0x04: "EOT",
  0x05: "ENQ",
  0x06: "ACK",
  0x07: "BEL",
  0x08: "BS",
  0x09: "TAB",
  0x0a: "LF",
  0x0b: "VT",
  0x0c: "FF",
  0x0d: "CR",
  0x0e: "SO",
  0x0f: "SI",
  0x10: "DLE",
  0x11: "DC1",
  0x12: "DC2",
  0x13: "DC3",
  0x14: "DC4",
  0x15: "NAK",
  0x16: "SYN",
  0x17: "ETB",
  0x18: "CAN",
  0x19: "EM",
  0x1a: "SUB",
  0x1b: "ESC",
  0x1c: "FS",
  0x1d: "GS",
  0x1e: "RS",
  0x1f: "US",
  0x7f: "DEL",
};

/**
 * Candidates only; `classify` decides. Astral ranges are braced (`\u{E0000}`): an unbraced
 * `\ue0000` would be `\uE000` followed by "0".
 */
const candidatePattern =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\r\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF0-\uFFFB\u{13430}-\u{1343F}\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E0FFF}\uD800-\uDFFF]/gu;

/**
 * Tab, newline and printable ASCII: no candidate is among them. Scanning for what is not (a short
 * class) is several times faster than scanning with `candidatePattern`, whose many ranges V8
 * checks one code point at a time; the long pattern then runs only inside the runs found. A
 * carriage return is not in the plain set, so it is looked at (and its next character read from
 * the whole text). A surrogate pair is never split: both halves are outside the plain set.
 */
const otherThanPlainText = /[^\t\n\u0020-\u007E]/;
const otherThanPlainTextRuns = /[^\t\n\u0020-\u007E]+/g;

function classify(code: number): UntrustedCharacterKind {
  if (code === 0x1b) return "escape";
  if (code === 0x0d) return "carriage_return";
  if (code < 0x20 || code === 0x7f) return "control";
  if (code >= 0x80 && code <= 0x9f) return "c1";
  if (code >= 0xd800 && code <= 0xdfff) return "surrogate";
  if (code >= 0xe0000 && code <= 0xe007f) return "tag";
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c) return "bidi";
  if ((code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff) return "zero_width";
  return "invisible";
}

function token(code: number): string {
  const name = controlNames[code];
  if (name !== undefined) return `⟨${name}⟩`;
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

function shouldEscape(kind: UntrustedCharacterKind, options: RenderTarget, followedByNewline: boolean): boolean {
  if (kind === "carriage_return") return !followedByNewline;
  if (kind === "bidi" || kind === "zero_width" || kind === "tag" || kind === "invisible") return options.target === "screen" || options.invisible === true;
  return true;
}

/** `text` with every dangerous or invisible character made visible, and what was escaped. */
export function renderUntrusted(text: string, options: RenderTarget = { target: "screen" }): RenderedText {
  const escaped: Partial<Record<UntrustedCharacterKind, number>> = {};
  // Most text is printable ASCII, which holds no candidate: only the runs of other characters
  // (where every candidate lies) go through the long pattern.
  if (!otherThanPlainText.test(text)) return { text, escaped };
  const rendered = text.replace(otherThanPlainTextRuns, (run: string, runOffset: number) =>
    run.replace(candidatePattern, (char: string, offset: number) => {
      const code = char.codePointAt(0) ?? 0;
      const kind = classify(code);
      if (!shouldEscape(kind, options, text.charCodeAt(runOffset + offset + 1) === 0x0a)) return char;
      escaped[kind] = (escaped[kind] ?? 0) + 1;
      return token(code);
    }),
  );
  return { text: rendered, escaped };
}

/** The screen rendering of `text`, for callers that show it and mark escapes elsewhere. */
export function renderForScreen(text: string): string {
  return renderUntrusted(text, { target: "screen" }).text;
}

/** How many characters a rendering replaced, all kinds together. */
export function escapedCount(rendered: RenderedText): number {
  return Object.values(rendered.escaped).reduce((sum, count) => sum + (count ?? 0), 0);
}

/** Adds one rendering's counts into a running total (both are by kind). */
export function mergeEscaped(total: Partial<Record<UntrustedCharacterKind, number>>, more: Partial<Record<UntrustedCharacterKind, number>>): Partial<Record<UntrustedCharacterKind, number>> {
  for (const [kind, count] of Object.entries(more) as Array<[UntrustedCharacterKind, number | undefined]>) {
    total[kind] = (total[kind] ?? 0) + (count ?? 0);
  }
  return total;
}

/**
 * Every string inside `value` (object keys included, through arrays and plain objects) rendered
 * with `renderUntrusted`; numbers, booleans and null are kept. A new value: the input is not changed.
 */
export function renderUntrustedValue(value: unknown, options: RenderTarget = { target: "screen" }): { value: unknown; escaped: Partial<Record<UntrustedCharacterKind, number>> } {
  const escaped: Partial<Record<UntrustedCharacterKind, number>> = {};
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") {
      const rendered = renderUntrusted(item, options);
      mergeEscaped(escaped, rendered.escaped);
      return rendered.text;
    }
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") {
      // A `__proto__` key stays a key (mapEntries defines own properties).
      return mapEntries(item, (key, inner) => [walk(key) as string, walk(inner)]);
    }
    return item;
  };
  return { value: walk(value), escaped };
}

/**
 * The tokens `renderUntrusted` writes (`⟨ESC⟩`, `⟨U+202E⟩`): a client that receives text the
 * orchestrator already rendered counts them to mark the line. Text that merely spells a token
 * is marked too, which errs on the loud side.
 */
export const escapeTokenPattern = /⟨(?:[A-Z]{2,3}|U\+[0-9A-F]{4,6})⟩/gu;

/** How many escape tokens a rendered text shows. */
export function countEscapeTokens(text: string): number {
  return text.match(escapeTokenPattern)?.length ?? 0;
}

/** The one warning line a screen shows beside text that had hidden or control characters. */
export function escapeWarning(count: number, escaped: Partial<Record<UntrustedCharacterKind, number>> = {}): string {
  const kinds = Object.entries(escaped)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([kind, n]) => `${n} ${kind.replace("_", " ")}`)
    .join(", ");
  const noun = count === 1 ? "character" : "characters";
  return `⚠ ${count} hidden/control ${noun} shown as ⟨…⟩${kinds ? ` (${kinds})` : ""}`;
}

/** The flag of an MCP server whose tool descriptions hold invisible or control characters (tool poisoning). */
export function mcpHiddenCharactersWarning(count: number): string {
  return `⚠ its tool descriptions hold ${count} hidden/control character${count === 1 ? "" : "s"} (tool poisoning?): the model reads them as ⟨…⟩ tokens; check the server before approving its calls`;
}

/**
 * JSON text made safe to print on a terminal without changing what it means: every character
 * `renderUntrusted` would escape for a screen becomes a JSON `\uXXXX` escape (inside a string that
 * is the same string). Tab, newline and CR are left alone: raw, they can only be whitespace between
 * tokens (JSON escapes them inside strings), and escaping them there would break the JSON.
 */
export function jsonForScreen(json: string): string {
  if (!otherThanPlainText.test(json)) return json;
  return json.replace(otherThanPlainTextRuns, (run: string) =>
    run.replace(candidatePattern, (char: string) => {
      if (char === "\t" || char === "\n" || char === "\r") return char;
      let out = "";
      for (let index = 0; index < char.length; index += 1) out += `\\u${char.charCodeAt(index).toString(16).padStart(4, "0")}`;
      return out;
    }),
  );
}

/**
 * `JSON.stringify(value)` through `jsonForScreen`: the one serialization of a message for a wire
 * a person may watch (the bus, the gateway's WebSocket and REST answers). `undefined` gives "".
 */
export function screenSafeJson(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? "" : jsonForScreen(json);
}

/**
 * (Defined here, not in a module of its own: the web panel loads this module as it is, and it has no imports.)
 * A new plain object with `map` applied to each own enumerable string-keyed entry of `value`, in
 * order: what `Object.fromEntries(Object.entries(value).map(...))` gives (a `__proto__` key stays an
 * own key and never sets the prototype), without building the entry arrays; in Node 20 that
 * composition costs several microseconds for a handful of keys, and events walk every object.
 */
export function mapEntries(value: object, map: (key: string, inner: unknown) => [string, unknown]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const [newKey, newValue] = map(key, (value as Record<string, unknown>)[key]);
    if (newKey === "__proto__") Object.defineProperty(out, newKey, { value: newValue, enumerable: true, writable: true, configurable: true });
    else out[newKey] = newValue;
  }
  return out;
}
