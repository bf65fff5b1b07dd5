import { renderUntrusted, type RenderedText } from "@aide/contracts";

/**
 * Characters a person reviewing a diff cannot see: Unicode Tags, bidi controls, zero-width and
 * other invisible format characters. Astral ranges are braced (`\u{E0000}`): an unbraced
 * `\ue0000` is `\uE000` + "0" and would match ASCII.
 */
export type InvisibleKind = "tag" | "bidi" | "zero_width" | "other";

export interface InvisibleFlag {
  path?: string;
  line: number;
  codepoint: string;
  kind: InvisibleKind;
}

const invisiblePattern = /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD]/gu;

export function classifyInvisible(char: string): InvisibleKind {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0xe0000 && code <= 0xe007f) return "tag";
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c) return "bidi";
  if ((code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff) return "zero_width";
  return "other";
}

function formatCodepoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Every invisible character in `text` (a leading BOM excepted), at most `limit` flags. */
export function scanInvisible(text: string, path?: string, limit = 50): InvisibleFlag[] {
  const flags: InvisibleFlag[] = [];
  let line = 1;
  let lastIndex = 0;
  for (const match of text.matchAll(invisiblePattern)) {
    const index = match.index ?? 0;
    if (index === 0 && match[0] === "\uFEFF") continue;
    for (let i = lastIndex; i < index; i += 1) if (text.charCodeAt(i) === 10) line += 1;
    lastIndex = index;
    flags.push({ ...(path !== undefined ? { path } : {}), line, codepoint: formatCodepoint(match[0]), kind: classifyInvisible(match[0]) });
    if (flags.length >= limit) break;
  }
  return flags;
}

/**
 * Text returned to the model with invisible characters and control bytes as visible tokens
 * (`⟨U+202E⟩`, `⟨ESC⟩`, `⟨NUL⟩`): the contracts' one rendering (`renderUntrusted`, model target,
 * invisible on), after dropping a leading byte-order mark (an encoding detail, not content).
 */
export function escapeInvisible(text: string): string {
  return renderForModel(text).text;
}

/** Like `escapeInvisible`, with how many characters of each kind became tokens. */
export function renderForModel(text: string): RenderedText {
  return renderUntrusted(text.startsWith("\uFEFF") ? text.slice(1) : text, { target: "model", invisible: true });
}
