export interface PatchHunk {
  /** 1-based old start line from the `@@` header, when there was one. */
  oldStart?: number;
  lines: Array<{ type: "context" | "remove" | "add" | "bare"; text: string }>;
}

export interface FilePatch {
  /** Target path (the `+++` side), or the old path when the file is deleted. */
  path: string;
  created: boolean;
  deleted: boolean;
  hunks: PatchHunk[];
}

export type ParsedPatch = { ok: true; files: FilePatch[] } | { ok: false; error: string };

function headerPath(raw: string): string {
  const value = raw.replace(/\t.*$/, "").trim().replace(/^"(.*)"$/, "$1");
  return value.replace(/^[ab]\//, "");
}

/**
 * A forgiving unified-diff reader: `diff --git`/`index` lines skipped, `@@` line numbers kept only as
 * hints, hunks without `@@` accepted, unprefixed lines kept as "bare" (context first, additions on
 * retry), and a diff without file headers applied to `defaultPath`.
 */
export function parseUnifiedDiff(text: string, defaultPath?: string): ParsedPatch {
  const lines = text.replace(/\r\n?/g, "\n").replace(/^\s*```[a-z]*\n/, "").replace(/\n```\s*$/, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let hunk: PatchHunk | undefined;
  const startFile = (path: string, created: boolean, deleted: boolean) => {
    file = { path, created, deleted, hunks: [] };
    files.push(file);
    hunk = undefined;
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      const oldPath = headerPath(line.slice(4));
      const newPath = headerPath(lines[i + 1].slice(4));
      const created = oldPath === "/dev/null";
      const deleted = newPath === "/dev/null";
      startFile(deleted ? oldPath : newPath, created, deleted);
      i += 1;
      continue;
    }
    if (/^(diff --git |index [0-9a-f]|new file mode|deleted file mode|similarity index|rename (from|to) |old mode|new mode|\*\*\* (Begin|End) Patch)/.test(line)) continue;
    if (line.startsWith("@@")) {
      if (file === undefined) {
        if (defaultPath === undefined) return { ok: false, error: "The diff has hunks but no `--- a/path` / `+++ b/path` header and no `path` argument." };
        startFile(defaultPath, false, false);
      }
      const header = /^@@+\s*-(\d+)/.exec(line);
      hunk = { oldStart: header ? Number(header[1]) : undefined, lines: [] };
      file!.hunks.push(hunk);
      continue;
    }
    if (file === undefined) {
      if (defaultPath === undefined || !/^[ +-]/.test(line)) continue;
      startFile(defaultPath, false, false);
    }
    if (hunk === undefined) {
      hunk = { lines: [] };
      file!.hunks.push(hunk);
    }
    if (line.startsWith("\\")) continue;
    if (line.startsWith("+")) hunk.lines.push({ type: "add", text: line.slice(1) });
    else if (line.startsWith("-")) hunk.lines.push({ type: "remove", text: line.slice(1) });
    else if (line.startsWith(" ")) hunk.lines.push({ type: "context", text: line.slice(1) });
    else if (line === "") hunk.lines.push({ type: "context", text: "" });
    else hunk.lines.push({ type: "bare", text: line });
  }
  const nonEmpty = files.filter((f) => f.hunks.some((h) => h.lines.length > 0) || f.created);
  if (nonEmpty.length === 0) return { ok: false, error: "No changes found in the diff. Give a unified diff: `--- a/path`, `+++ b/path`, then `@@` hunks with ' ', '-' and '+' lines." };
  return { ok: true, files: nonEmpty };
}

/** SEARCH and REPLACE text of a hunk; `bareAs` says how unprefixed lines count. */
export function hunkToBlock(hunk: PatchHunk, bareAs: "context" | "add"): { search: string; replace: string } {
  const before: string[] = [];
  const after: string[] = [];
  for (const line of hunk.lines) {
    const type = line.type === "bare" ? bareAs : line.type;
    if (type === "context" || type === "remove") before.push(line.text);
    if (type === "context" || type === "add") after.push(line.text);
  }
  // Trailing empty context lines are often artifacts of the model's formatting.
  while (before.length > 0 && after.length > 0 && before.at(-1) === "" && after.at(-1) === "") {
    before.pop();
    after.pop();
  }
  return { search: before.length > 0 ? before.join("\n") + "\n" : "", replace: after.length > 0 ? after.join("\n") + "\n" : "" };
}
