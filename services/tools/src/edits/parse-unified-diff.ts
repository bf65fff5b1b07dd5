export interface PatchLine {
  type: "context" | "remove" | "add";
  text: string;
}

export interface PatchHunk {
  /** 1-based old start line from the `@@` header, when there was one: a hint, never a location. */
  oldStart?: number;
  lines: PatchLine[];
  /** `\ No newline at end of file` after the old / new side's last line. */
  oldNoNewline: boolean;
  newNoNewline: boolean;
}

export type PatchOperation = "modify" | "create" | "delete" | "rename";

export interface FilePatch {
  /** The file written (the `+++` side), or the file removed for a delete. */
  path: string;
  /** A rename's source. */
  fromPath?: string;
  operation: PatchOperation;
  hunks: PatchHunk[];
}

export type ParsedPatch = { ok: true; files: FilePatch[] } | { ok: false; error: string };

const devNull = "/dev/null";

function headerPath(raw: string): string {
  const value = raw.replace(/\t.*$/, "").trim().replace(/^"(.*)"$/, "$1");
  return value === devNull ? value : value.replace(/^[ab]\//, "");
}

function operationOf(oldPath: string, newPath: string): { path: string; fromPath?: string; operation: PatchOperation } {
  if (oldPath === devNull) return { path: newPath, operation: "create" };
  if (newPath === devNull) return { path: oldPath, operation: "delete" };
  if (oldPath !== newPath) return { path: newPath, fromPath: oldPath, operation: "rename" };
  return { path: newPath, operation: "modify" };
}

const isHunkLine = (line: string) => line === "" || /^[ +\-\\]/.test(line);

/** `--- X` directly followed by `+++ Y` and then a hunk (or the end): a file header, not a removed `-- X` line. */
function isFileHeader(lines: readonly string[], i: number): boolean {
  return lines[i].startsWith("--- ") && lines[i + 1]?.startsWith("+++ ") === true;
}

/** Hunk lines end a hunk at trailing blank lines the header's counts do not cover (a separator before prose). */
function closeHunk(hunk: PatchHunk, counts: { old: number; new: number } | undefined): void {
  while (hunk.lines.length > 0) {
    const last = hunk.lines[hunk.lines.length - 1] as ParsingLine;
    if (last.type !== "context" || last.text !== "" || !last.bare) break;
    if (counts !== undefined) {
      const old = hunk.lines.filter((l) => l.type !== "add").length;
      const added = hunk.lines.filter((l) => l.type !== "remove").length;
      if (old <= counts.old && added <= counts.new) break;
    }
    hunk.lines.pop();
  }
  for (const line of hunk.lines) delete (line as ParsingLine).bare;
}

/** `rename from/to`, `deleted file mode`, `new file mode` after `diff --git`; true when the line was one of them. */
function readGitMetadata(file: FilePatch, line: string): boolean {
  const rename = /^rename (from|to) (.+)$/.exec(line);
  if (rename !== null) {
    if (rename[1] === "from") file.fromPath = rename[2].trim();
    else file.path = rename[2].trim();
    file.operation = "rename";
    return true;
  }
  if (/^deleted file mode /.test(line)) file.operation = "delete";
  else if (/^new file mode /.test(line)) file.operation = "create";
  else return false;
  return true;
}

/** `@@ -a[,b] +c[,d] @@`: the old start (a hint) and the counts (an omitted count is 1); undefined for a bare `@@`. */
function readHunkHeader(line: string): { oldStart: number; counts: { old: number; new: number } } | undefined {
  const header = /^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*@@/.exec(line);
  if (header === null) return undefined;
  return { oldStart: Number(header[1]), counts: { old: header[2] === undefined ? 1 : Number(header[2]), new: header[4] === undefined ? 1 : Number(header[4]) } };
}

interface ParsingLine extends PatchLine {
  /** An empty line (no leading space): blank context, or a separator. */
  bare?: boolean;
}

/**
 * Reads a unified diff the way a model writes one: code fences, prose, `diff --git`, `index`,
 * mode and similarity lines are skipped wherever they stand; a hunk ends at the first line that
 * is not a hunk line (so a closing fence and the prose after it are never added lines); `@@`
 * numbers are kept as hints; `rename from/to`, differing `---`/`+++` paths and `/dev/null` say
 * rename, create and delete; a diff without file headers applies to `defaultPath`.
 */
export function parseUnifiedDiff(text: string, defaultPath?: string): ParsedPatch {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let gitHeader = false;
  let hunk: PatchHunk | undefined;
  let counts: { old: number; new: number } | undefined;
  let justHeaded = false;
  /** A hunk ended by an unprefixed line: if hunk lines follow, that line was a hunk line missing its prefix. */
  let cutShort: { line: string; unsatisfied: boolean } | undefined;
  const finishHunk = () => {
    if (hunk !== undefined) closeHunk(hunk, counts);
    hunk = undefined;
    counts = undefined;
  };
  const startFile = (patch: FilePatch, fromGit: boolean) => {
    finishHunk();
    file = patch;
    files.push(patch);
    gitHeader = fromGit;
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (/^\s*```/.test(line)) cutShort = undefined;
    if (line.startsWith("@@") || (isFileHeader(lines, i) && hunk === undefined) || line.startsWith("diff --git ")) cutShort = undefined;
    if (cutShort !== undefined && cutShort.unsatisfied && /^[+-]|^ \s*\S/.test(line)) {
      return { ok: false, error: `A hunk has the line \`${cutShort.line}\` without a ' ', '-' or '+' prefix, and more hunk lines after it. Every line of a hunk starts with ' ' (unchanged), '-' (removed) or '+' (added); nothing is guessed.` };
    }
    if (line.startsWith("@@")) {
      finishHunk();
      if (file === undefined) {
        if (defaultPath === undefined) return { ok: false, error: "The diff has hunks but no `--- a/path` / `+++ b/path` header and no `path` argument." };
        startFile({ path: defaultPath, operation: "modify", hunks: [] }, false);
      }
      const header = readHunkHeader(line);
      hunk = { oldStart: header?.oldStart, lines: [], oldNoNewline: false, newNoNewline: false };
      counts = header?.counts;
      file!.hunks.push(hunk);
      justHeaded = false;
      continue;
    }
    // Inside a hunk, `--- x` + `+++ y` is a file header only when an `@@` follows (else: a removed `-- x`, an added `++ y`).
    if (isFileHeader(lines, i) && (hunk === undefined || lines[i + 2]?.startsWith("@@") === true)) {
      const next = operationOf(headerPath(line.slice(4)), headerPath(lines[i + 1].slice(4)));
      if (file !== undefined && gitHeader && file.hunks.length === 0) {
        // `diff --git` already named the file; ---/+++ refine it (a rename keeps its source).
        const fromPath = file.operation === "rename" ? file.fromPath : next.fromPath;
        const operation = file.operation === "rename" && next.operation === "modify" ? "rename" : next.operation;
        Object.assign(file, { ...next, fromPath, operation });
        gitHeader = false;
        finishHunk();
      } else startFile({ ...next, hunks: [] }, false);
      i += 1;
      justHeaded = true;
      continue;
    }
    const git = /^diff --git a\/(\S+) b\/(\S+)\s*$/.exec(line);
    if (git !== null) {
      startFile({ ...operationOf(git[1], git[2]), hunks: [] }, true);
      justHeaded = false;
      continue;
    }
    if (hunk === undefined && file !== undefined && gitHeader && file.hunks.length === 0 && readGitMetadata(file, line)) continue;
    if (hunk === undefined && justHeaded && file !== undefined && /^[ +-]/.test(line)) {
      // A hunk without an `@@` line, straight after the file header.
      hunk = { lines: [], oldNoNewline: false, newNoNewline: false };
      file.hunks.push(hunk);
    }
    justHeaded = false;
    if (hunk === undefined) continue;
    if (!isHunkLine(line) || /^diff --git /.test(line)) {
      const old = hunk.lines.filter((l) => l.type !== "add").length;
      const added = hunk.lines.filter((l) => l.type !== "remove").length;
      const unsatisfied = counts === undefined ? true : old < counts.old || added < counts.new;
      if (!/^\s*```/.test(line)) cutShort = { line, unsatisfied };
      finishHunk();
      continue;
    }
    if (line.startsWith("\\")) {
      const last = hunk.lines.at(-1);
      if (last !== undefined) {
        if (last.type !== "add") hunk.oldNoNewline = true;
        if (last.type !== "remove") hunk.newNoNewline = true;
      }
      continue;
    }
    const parsed: ParsingLine =
      line === "" ? { type: "context", text: "", bare: true } : { type: line[0] === "+" ? "add" : line[0] === "-" ? "remove" : "context", text: line.slice(1) };
    hunk.lines.push(parsed);
  }
  finishHunk();
  for (const patch of files) patch.hunks = patch.hunks.filter((h) => h.lines.length > 0);
  const useful = files.filter((f) => f.hunks.length > 0 || f.operation !== "modify");
  if (useful.length === 0) return { ok: false, error: "No changes found in the diff. Give a unified diff: `--- a/path`, `+++ b/path`, then `@@` hunks with ' ', '-' and '+' lines." };
  return { ok: true, files: useful };
}

/** The old side (context and removed lines) and the new side (context and added lines) of a hunk. */
export function hunkSides(hunk: PatchHunk): { old: string[]; new: string[] } {
  return {
    old: hunk.lines.filter((l) => l.type !== "add").map((l) => l.text),
    new: hunk.lines.filter((l) => l.type !== "remove").map((l) => l.text),
  };
}
