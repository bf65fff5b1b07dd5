/** Pure helpers over a unified diff's text (no DOM), shared by the diff view and its tests. */

const separator = (line: string) => /^(Index: |={5,}$)/.test(line);

/**
 * One file's part of a unified diff: from its `diff --git` or `--- ` header to the next. The
 * `Index: …` / `====` lines some diff tools print before a file are dropped (hunk lines always start
 * with a space, `+`, `-` or `\`, so they never look like one); a text with no header is one part.
 */
export function splitFiles(diff: string): string[] {
  const lines = diff.split("\n");
  const files: string[][] = [];
  let preamble: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const current = files.at(-1);
    const header = line.startsWith("diff --git ") || (line.startsWith("--- ") && lines[index + 1]?.startsWith("+++ "));
    const gitContinues = header && line.startsWith("--- ") && current !== undefined && current[0].startsWith("diff --git ") && !current.some((l) => l.startsWith("--- "));
    if (header && !gitContinues) {
      files.push([...preamble.filter((l) => !separator(l)), line]);
      preamble = [];
    } else if (current !== undefined && !separator(line)) current.push(line);
    else preamble.push(line);
  }
  if (files.length === 0) return preamble.join("\n").trim() === "" ? [] : [preamble.join("\n")];
  return files.map((file) => file.join("\n")).filter((file) => file.trim() !== "");
}

export function pathOf(fileDiff: string): string {
  const plus = /^\+\+\+ (?:b\/)?(.+)$/m.exec(fileDiff)?.[1];
  const minus = /^--- (?:a\/)?(.+)$/m.exec(fileDiff)?.[1];
  return plus && plus !== "/dev/null" ? plus : (minus ?? "(diff)");
}

export function countChanges(fileDiff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of fileDiff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++ ")) added++;
    else if (line.startsWith("-") && !line.startsWith("--- ")) removed++;
  }
  return { added, removed };
}
