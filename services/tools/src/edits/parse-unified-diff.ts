export interface PatchLine {
  type: "context" | "remove" | "add";
  text: string;
  /**
   * The line had no ' ', '-' or '+' prefix (a context line that lost its space, a blank line, or
   * prose after the hunk): it is context only where it is exactly the file's line.
   */
  unprefixed?: true;
}

export interface PatchHunk {
  /** 1-based old start line from the `@@` header, when there was one: a hint, never a location. */
  oldStart?: number;
  /** The `@@` header's line counts (an omitted count is 1): hints for where prose after a hunk starts. */
  counts?: { old: number; new: number };
  /** Every line up to the next `@@`, file header or fence at a line's start: the content, not the counts, says where the hunk ends. */
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
  const value = raw
    .replace(/\t.*$/, "")
    .trim()
    .replace(/^"(.*)"$/, "$1");
  return value === devNull ? value : value.replace(/^[ab]\//, "");
}

function operationOf(oldPath: string, newPath: string): { path: string; fromPath?: string; operation: PatchOperation } {
  if (oldPath === devNull) return { path: newPath, operation: "create" };
  if (newPath === devNull) return { path: oldPath, operation: "delete" };
  if (oldPath !== newPath) return { path: newPath, fromPath: oldPath, operation: "rename" };
  return { path: newPath, operation: "modify" };
}

/** `--- X` directly followed by `+++ Y` and then a hunk (or the end): a file header, not a removed `-- X` line. */
function isFileHeader(lines: readonly string[], i: number): boolean {
  return lines[i].startsWith("--- ") && lines[i + 1]?.startsWith("+++ ") === true;
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

/**
 * Reads a unified diff the way a model writes one: code fences, prose, `diff --git`, `index`,
 * mode and similarity lines are skipped wherever they stand between hunks; a hunk runs to the next
 * `@@`, file header or unindented fence, whatever its `@@` counts say, and a line in it without a ' ', '-' or
 * '+' prefix is kept, marked `unprefixed` (the file decides whether it is context or the prose
 * after the hunk: see hunk-readings.ts); `@@` numbers are kept as hints; `rename from/to`,
 * differing `---`/`+++` paths and `/dev/null` say rename, create and delete; a diff without file
 * headers applies to `defaultPath`.
 */
export function parseUnifiedDiff(text: string, defaultPath?: string): ParsedPatch {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  // The text's final newline ends its last line; it does not start an empty one.
  if (lines.at(-1) === "") lines.pop();
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let gitHeader = false;
  let hunk: PatchHunk | undefined;
  let justHeaded = false;
  const startFile = (patch: FilePatch, fromGit: boolean) => {
    hunk = undefined;
    file = patch;
    files.push(patch);
    gitHeader = fromGit;
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (line.startsWith("@@")) {
      if (file === undefined) {
        if (defaultPath === undefined) return { ok: false, error: "The diff has hunks but no `--- a/path` / `+++ b/path` header and no `path` argument." };
        startFile({ path: defaultPath, operation: "modify", hunks: [] }, false);
      }
      const header = readHunkHeader(line);
      hunk = { ...(header !== undefined ? { oldStart: header.oldStart, counts: header.counts } : {}), lines: [], oldNoNewline: false, newNoNewline: false };
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
        hunk = undefined;
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
    // A fence wraps the diff: inside a hunk (or where one starts, after a file header) it counts
    // only at the line's start; " ```" there is a context line, a Markdown file's own fence.
    if ((hunk === undefined && !justHeaded ? /^\s*```/ : /^```/).test(line) || /^diff --git /.test(line)) {
      hunk = undefined;
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
    if (line.startsWith("\\")) {
      const last = hunk.lines.at(-1);
      if (last !== undefined) {
        if (last.type !== "add") hunk.oldNoNewline = true;
        if (last.type !== "remove") hunk.newNoNewline = true;
      }
      continue;
    }
    const prefix = line[0];
    hunk.lines.push(
      prefix === " " || prefix === "+" || prefix === "-"
        ? { type: prefix === "+" ? "add" : prefix === "-" ? "remove" : "context", text: line.slice(1) }
        : { type: "context", text: line, unprefixed: true },
    );
  }
  // A hunk with no prefixed line is prose after an `@@`, not a change.
  for (const patch of files) patch.hunks = patch.hunks.filter((h) => h.lines.some((l) => l.unprefixed !== true));
  const useful = files.filter((f) => f.hunks.length > 0 || f.operation !== "modify");
  if (useful.length === 0) return { ok: false, error: "No changes found in the diff. Give a unified diff: `--- a/path`, `+++ b/path`, then `@@` hunks with ' ', '-' and '+' lines." };
  return { ok: true, files: useful };
}

/** The old side (context and removed lines) and the new side (context and added lines) of some hunk lines. */
export function hunkSides(lines: readonly PatchLine[]): { old: string[]; new: string[] } {
  return {
    old: lines.filter((l) => l.type !== "add").map((l) => l.text),
    new: lines.filter((l) => l.type !== "remove").map((l) => l.text),
  };
}
