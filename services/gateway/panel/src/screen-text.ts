import { countEscapeTokens, escapeWarning, renderUntrusted } from "./render-untrusted.js";
import { el } from "./dom.js";

/**
 * Text from the bus as the panel shows it: rendered again here (the panel does not trust that the
 * orchestrator did), so control, bidi, zero-width and Tag characters read as tokens like ⟨U+202E⟩.
 */
export function shown(value: unknown): string {
  return renderUntrusted(String(value ?? ""), { target: "screen" }).text;
}

/** How many characters a shown text displays as tokens. */
export function escapesIn(text: string): number {
  return countEscapeTokens(text);
}

/** The loud badge beside text that had hidden or control characters. */
export function escapeBadge(count: number, kinds: Record<string, number> = {}): HTMLElement {
  return el("span", { className: "escape-badge", text: escapeWarning(count, kinds), attrs: { "data-escapes": String(count) } });
}
