import { escapeInvisible } from "./invisible-characters.js";

/**
 * The one place where file content becomes text for the model: every line read_file shows passes
 * through here (control bytes and invisible characters as visible tokens, by the contracts' one
 * rendering). `atFileStart`: the text begins at the file's first byte, where U+FEFF is a
 * byte-order mark.
 */
export function renderFileText(text: string, atFileStart: boolean): string {
  // escapeInvisible drops a leading U+FEFF as a byte-order mark; only the file's first one is.
  return atFileStart ? escapeInvisible(text) : escapeInvisible(` ${text}`).slice(1);
}
