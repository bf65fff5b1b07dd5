/** Source files where a literal `\n` standing for a line break is a weak model's formatting slip. */
const SOURCE_EXTENSIONS = new Set([
  "py",
  "js",
  "mjs",
  "cjs",
  "jsx",
  "ts",
  "mts",
  "cts",
  "tsx",
  "java",
  "kt",
  "kts",
  "scala",
  "c",
  "h",
  "cc",
  "cpp",
  "cxx",
  "hpp",
  "cs",
  "go",
  "rs",
  "rb",
  "php",
  "sh",
  "bash",
  "zsh",
  "pl",
  "lua",
  "r",
  "jl",
  "swift",
  "m",
  "sql",
  "css",
  "scss",
  "less",
  "vue",
  "svelte",
  "dart",
  "ex",
  "exs",
  "erl",
  "hs",
  "ml",
  "clj",
  "groovy",
  "ps1",
]);

/** At least this many literal `\n` in a file with no real line break reads as escaped layout. */
const MIN_ESCAPED_NEWLINES = 3;

function isSourcePath(path: string): boolean {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf(".");
  if (base === "Makefile" || base === "Dockerfile") return true;
  return dot > 0 && SOURCE_EXTENSIONS.has(base.slice(dot + 1).toLowerCase());
}

/** Counts `\n` escapes that are not themselves escaped (`\\n` is a backslash then `n`). */
function countEscapedNewlines(content: string): number {
  return content.match(/(?<!\\)(?:\\\\)*\\n/g)?.length ?? 0;
}

/** Decodes only layout escapes, leaving `\\n` (an escaped backslash) and quotes alone. */
function decodeLayout(content: string): string {
  return content.replace(/\\(\\|r\\n|n|t)/g, (match, escape: string) => {
    if (escape === "\\") return "\\\\";
    if (escape === "t") return "\t";
    return "\n";
  });
}

/**
 * Decodes source written as one line with literal `\n` for line breaks (a weak-model habit):
 * only for source files, only with several escapes and no real line break besides a final one.
 * When the whole text is a valid JSON string body, it is decoded as JSON (so `\"` and `\\n` inside
 * code come back right); otherwise only the layout escapes are.
 */
export function decodeEscapedNewlines(content: string, path: string): { content: string; decoded: boolean } {
  if (!isSourcePath(path)) return { content, decoded: false };
  const realNewlines = (content.replace(/\n$/, "").match(/\n/g) ?? []).length;
  if (realNewlines > 0 || countEscapedNewlines(content) < MIN_ESCAPED_NEWLINES) return { content, decoded: false };
  const body = content.replace(/\n$/, "");
  try {
    const decoded = JSON.parse(`"${body}"`) as string;
    return { content: decoded.endsWith("\n") ? decoded : `${decoded}\n`, decoded: true };
  } catch {
    const decoded = decodeLayout(body);
    return { content: decoded.endsWith("\n") ? decoded : `${decoded}\n`, decoded: true };
  }
}
