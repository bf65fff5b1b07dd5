/** Leading whitespace of a line. */
export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}

export function isBlank(line: string): boolean {
  return line.trim() === "";
}

function columns(indent: string, tabWidth: number): number {
  let width = 0;
  for (const char of indent) width = char === "\t" ? width + tabWidth - (width % tabWidth) : width + 1;
  return width;
}

function render(width: number, useTabs: boolean, tabWidth: number): string {
  if (width <= 0) return "";
  return useTabs ? "\t".repeat(Math.floor(width / tabWidth)) + " ".repeat(width % tabWidth) : " ".repeat(width);
}

/** The width of one indentation level in `lines` written with spaces (2 or 4 usually). */
function spaceUnit(lines: readonly string[]): number {
  const widths = lines.filter((l) => !isBlank(l)).map((l) => leadingWhitespace(l)).filter((w) => w.length > 0 && !w.includes("\t")).map((w) => w.length);
  if (widths.length === 0) return 4;
  const smallest = Math.min(...widths);
  return smallest >= 2 && smallest <= 8 ? smallest : 4;
}

/**
 * Re-indents the replacement for where the needle matched: each replacement line keeps its own
 * indent relative to the needle's first non-blank line, on top of the matched file line's indent
 * (base + lineIndent − firstNeedleIndent), written in the file's style (tabs or spaces).
 */
export function reindentReplacement(replacement: readonly string[], needle: readonly string[], matched: readonly string[]): string[] {
  const needleFirst = needle.find((l) => !isBlank(l));
  const fileFirst = matched.find((l) => !isBlank(l));
  if (needleFirst === undefined || fileFirst === undefined) return [...replacement];
  const needleBase = leadingWhitespace(needleFirst);
  const fileBase = leadingWhitespace(fileFirst);
  const fileUsesTabs = matched.some((l) => leadingWhitespace(l).includes("\t"));
  const needleUsesTabs = needle.some((l) => leadingWhitespace(l).includes("\t")) || replacement.some((l) => leadingWhitespace(l).includes("\t"));
  if (needleBase === fileBase && fileUsesTabs === needleUsesTabs) return [...replacement];
  const sameStyle = fileUsesTabs === needleUsesTabs;
  const needleTab = needleUsesTabs ? 4 : spaceUnit([...needle, ...replacement]);
  const fileTab = fileUsesTabs ? 4 : spaceUnit(matched);
  return replacement.map((line) => {
    if (isBlank(line)) return "";
    const indent = leadingWhitespace(line);
    const body = line.slice(indent.length);
    if (sameStyle && indent.startsWith(needleBase)) return fileBase + indent.slice(needleBase.length) + body;
    // Relative depth in the needle's levels, rendered in the file's levels.
    const relativeLevels = (columns(indent, needleTab) - columns(needleBase, needleTab)) / needleTab;
    const width = columns(fileBase, fileTab) + Math.round(relativeLevels * fileTab);
    return render(width, fileUsesTabs, fileTab) + body;
  });
}
