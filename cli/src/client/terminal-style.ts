/** ANSI styling, off when the stream is not a terminal or NO_COLOR is set. */
export function createStyle(enabled: boolean) {
  const wrap = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    inverse: wrap(7, 27),
  };
}
export type Style = ReturnType<typeof createStyle>;

/** A unified diff with added lines green and removed lines red. */
export function renderDiff(diff: string, style: Style): string {
  return diff
    .split("\n")
    .map((line) => {
      if (line.startsWith("+++") || line.startsWith("---")) return style.bold(line);
      if (line.startsWith("+")) return style.green(line);
      if (line.startsWith("-")) return style.red(line);
      if (line.startsWith("@@")) return style.cyan(line);
      return line;
    })
    .join("\n");
}
