import { describe, expect, it } from "vitest";
import { escapedCount, renderForScreen, renderUntrusted } from "../src/index.js";
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

  it("for a model, escapes controls but keeps CR and invisible characters unless asked", () => {
    expect(renderUntrusted("a\u0000b\rc\u202Ed", { target: "model" }).text).toBe("a⟨NUL⟩b\rc\u202Ed");
    expect(renderUntrusted("c\u202Ed", { target: "model", invisible: true }).text).toBe("c⟨U+202E⟩d");
  });

  it("shows a lone surrogate and C1 controls by code point", () => {
    expect(renderForScreen("a\uD800b\u0085c")).toBe("a⟨U+D800⟩b⟨U+0085⟩c");
  });
});
