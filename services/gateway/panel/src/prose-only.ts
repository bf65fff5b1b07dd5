/**
 * The model's prose without its XML tool-call blocks (each call is shown as its own entry); an
 * unfinished block, mid-stream, is hidden until it closes. Only ASCII whitespace is trimmed, so an
 * invisible character at either end is still there to be shown as a token.
 */
export function proseOnly(text: string): string {
  return text
    .replace(/(^|\n)[ \t]*<([a-z_]+)>[\s\S]*?(<\/\2>|$)/g, "$1")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
}
