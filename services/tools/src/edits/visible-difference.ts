/** One character made visible: space `·`, tab `\t`, CR `\r`, anything outside printable ASCII `U+XXXX`. */
function visibleChar(char: string): string {
  if (char === " ") return "·";
  if (char === "\t") return "\\t";
  if (char === "\r") return "\\r";
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x21 && code <= 0x7e) return char;
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

function showAll(text: string): string {
  return [...text].map(visibleChar).join("");
}

/** Leading whitespace made visible, the rest as it is. */
function showIndent(text: string): string {
  const indent = /^[ \t]*/.exec(text)?.[0] ?? "";
  return showAll(indent) + text.slice(indent.length);
}

/**
 * Two lines that differ, each rendered with the differing middle in ⟦…⟧ and every character there
 * made visible (a no-break space shows as U+00A0, NFD's combining accent as U+0301, a tab as \t).
 */
export function visibleDifference(wanted: string, actual: string): { wanted: string; actual: string } {
  const a = [...wanted];
  const b = [...actual];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix += 1;
  const render = (chars: string[]) => {
    const head = chars.slice(0, prefix).join("");
    const middle = chars.slice(prefix, chars.length - suffix).join("");
    const tail = chars.slice(chars.length - suffix).join("");
    return `${showIndent(head)}⟦${showAll(middle)}⟧${head === "" ? showIndent(tail) : tail}`;
  };
  return { wanted: render(a), actual: render(b) };
}
