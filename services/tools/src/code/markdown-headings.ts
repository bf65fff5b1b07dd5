import type { FileTags } from "./code-definition.js";

const heading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const fence = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Markdown's ATX headings (`#` … `######`) outside fenced code blocks, each spanning to the line
 * before the next heading of the same or a higher level. A line scan: tree-sitter-wasms ships no
 * Markdown grammar, and headings are the only definitions a Markdown file has.
 */
export function markdownHeadings(text: string): FileTags {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const found: Array<{ level: number; title: string; line: number }> = [];
  let openFence: string | undefined;
  lines.forEach((line, index) => {
    const fenceMatch = fence.exec(line);
    if (fenceMatch !== null) {
      const marker = fenceMatch[1];
      if (openFence === undefined) openFence = marker;
      else if (marker[0] === openFence[0] && marker.length >= openFence.length && line.trim() === marker) openFence = undefined;
      return;
    }
    if (openFence !== undefined) return;
    const match = heading.exec(line);
    if (match !== null) found.push({ level: match[1].length, title: (match[2] ?? "").trim(), line: index + 1 });
  });
  const definitions = found.map((entry, index) => {
    const next = found.slice(index + 1).find((other) => other.level <= entry.level);
    return { name: entry.title, kind: `heading${entry.level}`, startLine: entry.line, endLine: next === undefined ? lines.length : next.line - 1, signature: lines[entry.line - 1].trim() };
  });
  return { language: "markdown", definitions, references: [] };
}
