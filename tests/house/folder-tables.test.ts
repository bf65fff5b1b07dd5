/**
 * The house rule that a README's map of its folder is true: each package's README (the root, every
 * npm workspace, eval/, bench/, tests/) has a `## Layout` table, and that table and its folder
 * agree. Then every repository path a README or a docs page names in backticks, and every relative
 * link it holds, exists. Reads files only; starts no process.
 *
 * The rule for a Layout table: the first table after the `## Layout` heading; in each row, the
 * backticked paths of the first cell are relative to the README's folder, a path ending in `/` is
 * a folder. Every path listed must exist (a path holding `<`, `*` or `…` is a pattern and is not
 * checked). Every folder directly inside the README's folder, and directly inside its `src/`, must
 * be listed (itself, or a path inside it), except `node_modules`, `dist`, `coverage`, hidden
 * folders and folders that hold no file (git does not keep those).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const workspaces = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] }).workspaces;
/** The folders whose README must carry a Layout table ("" is the repository's root). */
export const layoutFolders = ["", ...workspaces, "eval", "bench", "tests"];
const docsPages = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);
/** Every markdown file whose cited paths and links are checked. */
const checkedFiles = [...layoutFolders.map((folder) => join(folder, "README.md")), ...docsPages];
/**
 * Pages another change writes: a link to one is accepted while it is absent and checked like any
 * other once it exists. The settings table is derived from the strategy table.
 */
const pagesWrittenElsewhere = new Set(["docs/settings.md"]);
const skippedFolders = new Set(["node_modules", "dist", "coverage"]);

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function holdsAFile(folder: string): boolean {
  return readdirSync(folder, { withFileTypes: true }).some((entry) => (entry.isDirectory() ? !skippedFolders.has(entry.name) && holdsAFile(join(folder, entry.name)) : true));
}

/** Folders directly inside `folder` that a Layout table must list, as paths relative to `base`. */
function foldersToList(folder: string, base: string): string[] {
  if (!isDirectory(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !skippedFolders.has(entry.name))
    .filter((entry) => holdsAFile(join(folder, entry.name)))
    .map((entry) => relative(base, join(folder, entry.name)));
}

/** Text without fenced code blocks: their lines are commands, not citations. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "");
}

function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
}

const isPattern = (path: string) => /[<>*…{}]/.test(path);

/** The backticked paths of the first cells of the Layout table's rows; null when there is none. */
export function layoutEntries(markdown: string): string[] | null {
  const lines = markdown.split("\n");
  const heading = lines.findIndex((line) => /^## Layout\s*$/.test(line));
  if (heading < 0) return null;
  const start = lines.findIndex((line, index) => index > heading && line.startsWith("|"));
  if (start < 0) return null;
  const rows: string[] = [];
  for (let index = start; index < lines.length && lines[index].startsWith("|"); index++) rows.push(lines[index]);
  return rows.slice(2).flatMap((row) => backticked(row.split("|")[1] ?? ""));
}

/**
 * A backticked text is taken for a repository path when it is one word with a `/` whose first
 * folder exists beside the file, in its folder's `src/`, or at the root; it must then exist in one
 * of those places. A `:line` suffix is dropped.
 */
export function missingCitedPaths(file: string, markdown: string): string[] {
  const folder = dirname(join(root, file));
  const bases = [folder, join(folder, "src"), root];
  const missing: string[] = [];
  for (const span of backticked(prose(markdown))) {
    const path = span.replace(/:\d+(-\d+)?$/, "");
    if (!/^[\w@][\w.@-]*(\/[\w.@-]+)*\/?$/.test(path) || !path.includes("/") || isPattern(path)) continue;
    // Build output and installed packages are not in the repository.
    if (path.split("/").some((segment) => skippedFolders.has(segment))) continue;
    const first = path.split("/")[0];
    const candidates = bases.filter((base) => isDirectory(join(base, first)));
    if (candidates.length > 0 && !candidates.some((base) => existsSync(join(base, path)))) missing.push(path);
  }
  return [...new Set(missing)];
}

export function brokenLinks(file: string, markdown: string): string[] {
  const folder = dirname(join(root, file));
  const broken: string[] = [];
  for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1].replace(/[#?].*$/, "");
    if (target === "" || /^[a-z][a-z+.-]*:/i.test(target)) continue;
    const path = resolve(folder, target);
    if (existsSync(path)) continue;
    if (pagesWrittenElsewhere.has(relative(root, path))) continue;
    broken.push(match[1]);
  }
  return broken;
}

describe("the READMEs' folder tables", () => {
  it.each(layoutFolders.map((folder) => [folder === "" ? "README.md" : `${folder}/README.md`, folder]))("%s lists exactly its folders", (readme, folder) => {
    const base = join(root, folder);
    const entries = layoutEntries(readFileSync(join(base, "README.md"), "utf8"));
    expect(entries, `${readme} has no table under "## Layout"`).not.toBeNull();
    const checked = entries!.filter((entry) => !isPattern(entry));
    const absent = checked.filter((entry) => (entry.endsWith("/") ? !isDirectory(join(base, entry)) : !existsSync(join(base, entry))));
    expect(absent, `${readme} lists what does not exist`).toEqual([]);
    // A folder counts as listed when it or a path inside it is (`src/turn/` lists `src`).
    const listed = checked.map((entry) => entry.replace(/\/$/, ""));
    const isListed = (path: string) => listed.some((entry) => entry === path || entry.startsWith(`${path}/`));
    const required = [...foldersToList(base, base), ...foldersToList(join(base, "src"), base)];
    expect(
      required.filter((path) => !isListed(path)),
      `${readme} does not list these folders`,
    ).toEqual([]);
  });
});

describe("paths and links the READMEs and docs pages cite", () => {
  it.each(checkedFiles)("%s cites only paths that exist", (file) => {
    const markdown = readFileSync(join(root, file), "utf8");
    expect(missingCitedPaths(file, markdown)).toEqual([]);
    expect(brokenLinks(file, markdown)).toEqual([]);
  });
});

describe("the rules themselves", () => {
  it("find a missing folder, an unlisted one and a wrong path", () => {
    expect(layoutEntries("# x\n\n## Layout\n\n| folder | what |\n| --- | --- |\n| `src/a/`, `src/b.ts` | a |\n| `test/` | t |\n\ntext `c/`")).toEqual(["src/a/", "src/b.ts", "test/"]);
    expect(layoutEntries("# x\n\n| `src/` | no heading |")).toBeNull();
    expect(missingCitedPaths("README.md", "see `services/tools/src/no-such-file.ts` and `services/tools/README.md`")).toEqual(["services/tools/src/no-such-file.ts"]);
    expect(missingCitedPaths("services/orchestrator/README.md", "`turn/no-such-step.ts`, `tasks/<id>/check/`, `~/.aide/run`, `run/tls/x`")).toEqual(["turn/no-such-step.ts", "run/tls/x"]);
    expect(brokenLinks("docs/eval.md", "[a](../eval/README.md) [b](missing.md#x) [c](https://example.com) [d](#anchor)")).toEqual(["missing.md#x"]);
    expect(foldersToList(join(root, "services", "orchestrator", "src"), join(root, "services", "orchestrator"))).toContain("src/turn");
  });
});
