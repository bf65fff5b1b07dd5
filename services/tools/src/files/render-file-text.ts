import { escapeInvisible } from "./invisible-characters.js";

/**
 * The one place where file content becomes text for the model: every line read_file shows passes
 * through here (invisible characters as visible escapes; control-byte escaping belongs here too).
 */
export function renderFileText(text: string): string {
  return escapeInvisible(text);
}
