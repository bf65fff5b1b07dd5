import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentEventSchema, jsonForScreen, screenSafeJson, countEscapeTokens, escapedCount, escapeWarning, renderForScreen, renderUntrusted, renderUntrustedValue } from "../src/index.js";
import { hostileStrings, rawControlPattern } from "./hostile-strings.js";

describe("renderUntrusted", () => {
  it.each(hostileStrings)("screen: $name leaves no raw control or invisible character", ({ text }) => {
    const rendered = renderUntrusted(text, { target: "screen" });
    expect(rendered.text).not.toMatch(rawControlPattern);
    expect(escapedCount(rendered)).toBeGreaterThan(0);
  });

  it("names what it escaped and keeps the sequence's printable part readable", () => {
    const rendered = renderUntrusted("a\u001b]8;;https://x.example/\u0007b\u202Ec", { target: "screen" });
    expect(rendered.text).toBe("a⟨ESC⟩]8;;https://x.example/⟨BEL⟩b⟨U+202E⟩c");
    expect(rendered.escaped).toEqual({ escape: 1, control: 1, bidi: 1 });
  });

  it("keeps tabs, newlines and CRLF line ends; a lone CR is shown", () => {
    expect(renderForScreen("a\tb\r\nc\nd")).toBe("a\tb\r\nc\nd");
    expect(renderForScreen("evil\rgood")).toBe("evil⟨CR⟩good");
  });

  it("leaves ordinary text, accents, CJK and emoji alone", () => {
    const text = "café naïve 日本語 👍🏽 — “quotes” ünïcödé";
    expect(renderUntrusted(text)).toEqual({ text, escaped: {} });
  });

  it("for a model, escapes controls and a lone CR but keeps CRLF line ends and invisible characters unless asked", () => {
    expect(renderUntrusted("a\u0000b\rc\u202Ed", { target: "model" }).text).toBe("a⟨NUL⟩b⟨CR⟩c\u202Ed");
    expect(renderUntrusted("x\r\ny\tz\u009b2J\u001b[0m", { target: "model" }).text).toBe("x\r\ny\tz⟨U+009B⟩2J⟨ESC⟩[0m");
    expect(renderUntrusted("c\u202Ed", { target: "model", invisible: true }).text).toBe("c⟨U+202E⟩d");
  });

  it("shows Hangul fillers and supplementary variation selectors, leaves emoji variation selectors alone", () => {
    expect(renderUntrusted("a\u3164b\u{E0100}c")).toEqual({ text: "a⟨U+3164⟩b⟨U+E0100⟩c", escaped: { invisible: 2 } });
    expect(renderForScreen("❤\uFE0F")).toBe("❤\uFE0F");
  });

  it("shows the format controls and reserved default-ignorable code points that fonts draw as nothing", () => {
    // Found by the fuzz bench: each of these was left as it was, invisible on a screen and on the bus.
    for (const char of ["\uFFF2", "\u{13438}", "\u{1BCA0}", "\u{1D173}", "\u{E0080}", "\u{E01F0}", "\u{E0FFF}"]) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      expect(renderForScreen(`a${char}b`), code).toBe(`a⟨U+${code}⟩b`);
      expect(jsonForScreen(JSON.stringify(char)), code).toBe(`"\\u${char.length === 1 ? code.toLowerCase() : [...Array(2).keys()].map((i) => char.charCodeAt(i).toString(16)).join("\\u")}"`);
    }
  });

  it("shows a lone surrogate and C1 controls by code point", () => {
    expect(renderForScreen("a\uD800b\u0085c")).toBe("a⟨U+D800⟩b⟨U+0085⟩c");
  });

  // Only runs of characters outside printable ASCII are scanned with the long pattern: a
  // candidate inside such a run, at its edges, and a CR whose LF lies past the run's end.
  it("escapes candidates inside and at the edges of non-ASCII runs, and reads a CR's next character across the run's end", () => {
    expect(renderUntrusted("日\u202E本 é\r\nx é\ry 😀\u{E0041}\u2066")).toEqual({ text: "日⟨U+202E⟩本 é\r\nx é⟨CR⟩y 😀⟨U+E0041⟩⟨U+2066⟩", escaped: { bidi: 2, carriage_return: 1, tag: 1 } });
    expect(renderUntrusted("\u001b\u00e9")).toEqual({ text: "⟨ESC⟩é", escaped: { escape: 1 } });
    expect(jsonForScreen(`"日\u202E本\u0085"\r\n`)).toBe('"日\\u202e本\\u0085"\r\n');
  });
});

describe("renderUntrustedValue", () => {
  it("renders every string of a nested value, keys included, and sums what it escaped", () => {
    const input = { "a\u001b": ["x\u202Ey", 3, null, { deep: "p\rq" }], ok: true };
    const { value, escaped } = renderUntrustedValue(input);
    expect(value).toEqual({ "a⟨ESC⟩": ["x⟨U+202E⟩y", 3, null, { deep: "p⟨CR⟩q" }], ok: true });
    expect(escaped).toEqual({ escape: 1, bidi: 1, carriage_return: 1 });
    expect(input["a\u001b"][0]).toBe("x\u202Ey");
  });
  it("keeps a __proto__ key a key", () => {
    const { value } = renderUntrustedValue(JSON.parse('{"__proto__": {"polluted": "\\u001b"}}'));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(["__proto__"]);
  });
  it.each(hostileStrings)("$name: the tokens of a rendering are counted again downstream", ({ text }) => {
    const rendered = renderUntrusted(text);
    expect(countEscapeTokens(rendered.text)).toBe(escapedCount(rendered));
  });
  it("says how many characters were escaped, by kind", () => {
    expect(escapeWarning(3, { escape: 2, zero_width: 1 })).toBe("⚠ 3 hidden/control characters shown as ⟨…⟩ (2 escape, 1 zero width)");
    expect(escapeWarning(1)).toBe("⚠ 1 hidden/control character shown as ⟨…⟩");
  });
});

describe("the approval.requested fixture with a hostile command", () => {
  it("carries the screen rendering as the command, the raw bytes only as base64, and the counts", () => {
    const file = join(import.meta.dirname, "fixtures", "event-approval-requested-hostile-command.json");
    const text = readFileSync(file, "utf8");
    const event = AgentEventSchema.parse((JSON.parse(text) as { message: unknown }).message);
    if (event.type !== "approval.requested") throw new Error("wrong fixture");
    const raw = Buffer.from(event.payload.raw_base64?.command ?? "", "base64").toString("utf8");
    const rendered = renderUntrusted(raw);
    expect(raw).toMatch(rawControlPattern);
    expect(event.payload.command).toBe(rendered.text);
    expect(JSON.stringify(event.payload)).not.toMatch(rawControlPattern);
    expect(event.payload.escapes).toEqual({ count: escapedCount(rendered), kinds: rendered.escaped });
  });
});

describe("screenSafeJson", () => {
  it.each(hostileStrings)("$name: the serialization means the same and holds no raw control or invisible byte", ({ text }) => {
    const safe = screenSafeJson({ text, [text]: [text] });
    expect(safe).not.toMatch(rawControlPattern);
    expect(JSON.parse(safe)).toEqual({ text, [text]: [text] });
  });
  it("serializes undefined as nothing", () => {
    expect(screenSafeJson(undefined)).toBe("");
  });
});

describe("jsonForScreen", () => {
  it.each(hostileStrings)("$name: the JSON means the same and prints no raw control character", ({ text }) => {
    const json = JSON.stringify({ text, list: [text] }, null, 2);
    const safe = jsonForScreen(json);
    expect(safe).not.toMatch(rawControlPattern);
    expect(JSON.parse(safe)).toEqual({ text, list: [text] });
  });
});
