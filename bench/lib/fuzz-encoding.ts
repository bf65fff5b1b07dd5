import fc from "fast-check";
import { AideError, escapedCount, renderUntrusted } from "@aide/contracts";
import { decodeJson, encodeJson } from "@aide/runtime";
import { claim, type FuzzTarget } from "./fuzz-runner.js";

/**
 * What no rendered text may keep, judged independently of the renderer's own list (Unicode's
 * properties): controls (tab and newline aside, and a CR that ends a line before its LF), format
 * characters, line and paragraph separators, lone surrogates, and default-ignorable code points
 * (which fonts draw as nothing). Left out by design: the emoji variation selectors U+FE00–FE0F
 * (they select a glyph's style and carry no hidden bytes) and the prepended concatenation marks
 * (Arabic number signs and their kin, format characters that are drawn as visible glyphs).
 */
const visibleFormat = new Set([0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06dd, 0x070f, 0x0890, 0x0891, 0x08e2, 0x110bd, 0x110cd]);

function hidden(code: number, next: number | undefined, target: "screen" | "model"): boolean {
  const char = String.fromCodePoint(code);
  if (code === 0x09 || code === 0x0a) return false;
  if (code === 0x0d) return next !== 0x0a;
  if (/\p{Cc}/u.test(char)) return true;
  if (code >= 0xd800 && code <= 0xdfff) return true;
  if (target === "model") return false;
  if (code >= 0xfe00 && code <= 0xfe0f) return false;
  if (visibleFormat.has(code)) return false;
  return /[\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u.test(char);
}

/** The code points `hidden` flags for the screen, listed once: the generators draw from them often. */
const suspects: string[] = [];
for (let code = 0; code <= 0x10ffff; code += 1) {
  if (code >= 0xd800 && code <= 0xdfff) continue;
  if (hidden(code, undefined, "screen")) suspects.push(String.fromCodePoint(code));
}
const loneSurrogates = ["\ud800", "\udbff", "\udc00", "\udfff"];

/** Text with hidden characters in it often, beside ordinary and already-rendered text. */
const untrustedArb = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...suspects, ...loneSurrogates) },
      { weight: 3, arbitrary: fc.string({ maxLength: 6, unit: "binary" }) },
      { weight: 2, arbitrary: fc.constantFrom("a", " ", "\n", "\r\n", "\r", "\t", "\x1b[2J", "\x1b]8;;http://x\x07", "⟨ESC⟩", "⟨U+202E⟩", "⟨", "⟩", "e\u0301", "🙂", "\u{1F469}\u200D\u{1F4BB}") },
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(""));

function firstHidden(text: string, target: "screen" | "model"): string | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.codePointAt(index)!;
    const width = code > 0xffff ? 2 : 1;
    if (hidden(code, text.charCodeAt(index + width), target)) return `U+${code.toString(16).toUpperCase().padStart(4, "0")} at ${index}`;
    index += width - 1;
  }
  return undefined;
}

const renderTarget: FuzzTarget = {
  name: "render-untrusted",
  subject: "renderUntrusted (contracts), the one rendering of untrusted text for a screen or a model",
  properties: [
    claim(
      "screen",
      "rendering for a screen leaves no control, format, separator, lone surrogate or default-ignorable character, and rendering again changes nothing",
      fc.property(untrustedArb, (text) => {
        const once = renderUntrusted(text, { target: "screen" });
        const left = firstHidden(once.text, "screen");
        if (left !== undefined) throw new Error(`${left} is left in ${JSON.stringify(once.text)}`);
        const twice = renderUntrusted(once.text, { target: "screen" });
        if (twice.text !== once.text || escapedCount(twice) > 0) throw new Error(`not idempotent: ${JSON.stringify(twice.text)}`);
      }),
    ),
    claim(
      "model",
      "rendering for a model leaves no control or lone surrogate (with `invisible`, nothing hidden at all), and rendering again changes nothing",
      fc.property(untrustedArb, fc.boolean(), (text, invisible) => {
        const once = renderUntrusted(text, { target: "model", invisible });
        const left = firstHidden(once.text, invisible ? "screen" : "model");
        if (left !== undefined) throw new Error(`${left} is left in ${JSON.stringify(once.text)}`);
        const twice = renderUntrusted(once.text, { target: "model", invisible });
        if (twice.text !== once.text) throw new Error(`not idempotent: ${JSON.stringify(twice.text)}`);
      }),
    ),
  ],
};

/** JSON equality; -0 and 0 are the same JSON number (JSON has no negative zero to carry). */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  }
  return Object.is(a, b);
}

const jsonArb = fc.oneof(
  fc.jsonValue({ stringUnit: "binary", maxDepth: 4 }),
  fc.jsonValue({ stringUnit: fc.constantFrom(...suspects.slice(0, 400), ...loneSurrogates, "a", '"', "\\", "\u2028"), maxDepth: 3 }),
);

const codecTarget: FuzzTarget = {
  name: "bus-codec",
  subject: "encodeJson / decodeJson (runtime), the one serializer of everything on the bus",
  properties: [
    claim(
      "round trip",
      "decode(encode(x)) equals x for every JSON value (lone surrogates and hidden characters in strings and keys included)",
      fc.property(jsonArb, (value) => {
        const back = decodeJson(encodeJson(value));
        if (!sameJson(back, value)) throw new Error(`came back as ${JSON.stringify(back)}`);
      }),
    ),
    claim(
      "screen-safe bytes",
      "the encoded bytes hold no character a screen would escape: hidden characters travel as \\u escapes",
      fc.property(jsonArb, (value) => {
        const text = new TextDecoder().decode(encodeJson(value));
        const rendered = renderUntrusted(text, { target: "screen" });
        if (escapedCount(rendered) > 0) throw new Error(`raw ${JSON.stringify(rendered.escaped)} in the encoded bytes`);
        const left = firstHidden(text, "screen");
        if (left !== undefined) throw new Error(`${left} travels raw`);
      }),
    ),
    claim(
      "any bytes",
      "decoding any bytes gives a value or a BAD_JSON error, never another throw",
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.jsonValue().map((value) => new TextEncoder().encode(JSON.stringify(value).slice(0, -1))),
        ),
        (bytes) => {
          try {
            decodeJson(bytes);
          } catch (error) {
            if (error instanceof AideError && error.code === "BAD_JSON") return;
            throw error;
          }
        },
      ),
    ),
  ],
};

export const encodingTargets: FuzzTarget[] = [codecTarget, renderTarget];
