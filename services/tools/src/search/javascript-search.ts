import { open, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { IgnoreFile } from "./gitignore.js";
import { includeMatcher } from "./glob-to-regexp.js";
import { excludedDirectories, type SearchHit, type SearchOutcome, type SearchQuery } from "./search-types.js";

function compile(query: SearchQuery): RegExp | string {
  const source = query.literal ? query.pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") : query.pattern;
  const flags = query.caseInsensitive ? "gi" : "g";
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (error) {
      return `The pattern is not a valid regular expression: ${(error as Error).message}`;
    }
  }
}

function countMatches(text: string, regex: RegExp): number {
  let count = 0;
  // A CRLF file's lines end before the \r, as with ripgrep --crlf: `foo$` matches `foo\r\n`.
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    regex.lastIndex = 0;
    for (let match = regex.exec(line); match !== null; match = regex.exec(line)) {
      count += 1;
      if (match[0].length === 0) regex.lastIndex += 1;
    }
  }
  return count;
}

async function isBinary(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

/** The fallback when ripgrep is missing: the same ignore rules and counts, slower. */
export async function javascriptSearch(query: SearchQuery): Promise<SearchOutcome> {
  const regex = compile(query);
  if (typeof regex === "string") return { ok: false, error: regex };
  const include = query.include !== undefined ? includeMatcher(query.include) : undefined;
  const hits: SearchHit[] = [];
  const deadline = Date.now() + query.timeoutMs;
  const rootIgnores: IgnoreFile[] = [];
  const exclude = await readFile(join(query.root, ".git", "info", "exclude"), "utf8").catch(() => undefined);
  if (exclude !== undefined) rootIgnores.push(new IgnoreFile(exclude));

  const searchFile = async (relativePath: string) => {
    if (include !== undefined && !include(relativePath)) return;
    const absolute = join(query.root, relativePath);
    if (await isBinary(absolute).catch(() => true)) return;
    const matches = countMatches(await readFile(absolute, "utf8"), regex);
    if (matches > 0) hits.push({ path: relativePath, matches });
  };

  const walk = async (relativeDirectory: string, ignores: Array<{ base: string; file: IgnoreFile }>) => {
    if (query.signal?.aborted || Date.now() > deadline) throw new Error("timeout");
    const absolute = relativeDirectory === "." ? query.root : join(query.root, relativeDirectory);
    const own = await readFile(join(absolute, ".gitignore"), "utf8").catch(() => undefined);
    const scoped = own === undefined ? ignores : [...ignores, { base: relativeDirectory, file: new IgnoreFile(own) }];
    const entries = await readdir(absolute, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const relativePath = relativeDirectory === "." ? entry.name : `${relativeDirectory}/${entry.name}`;
      const isDirectory = entry.isDirectory();
      if (isDirectory && excludedDirectories.includes(entry.name)) continue;
      let ignored: boolean | undefined;
      for (const { base, file } of scoped) {
        const within = base === "." ? relativePath : relativePath.slice(base.length + 1);
        const verdict = file.test(within, isDirectory);
        if (verdict !== undefined) ignored = verdict;
      }
      if (ignored === true) continue;
      if (isDirectory) await walk(relativePath, scoped);
      else if (entry.isFile()) await searchFile(relativePath);
    }
  };

  try {
    const base = rootIgnores.map((file) => ({ base: ".", file }));
    // Ignore files of the directories above the target (inside the workspace) apply too.
    const parts = query.target === "." ? [] : query.target.split("/");
    for (let depth = 0; depth < parts.length; depth += 1) {
      const directory = depth === 0 ? "." : parts.slice(0, depth).join("/");
      const text = await readFile(join(query.root, directory, ".gitignore"), "utf8").catch(() => undefined);
      if (text !== undefined) base.push({ base: directory, file: new IgnoreFile(text) });
    }
    const targetStats = await readdir(join(query.root, query.target)).then(() => "dir", () => "file");
    if (targetStats === "file") await searchFile(query.target);
    else await walk(query.target, base);
  } catch (error) {
    if ((error as Error).message === "timeout") return { ok: false, error: `The search timed out after ${query.timeoutMs} ms; search a smaller directory or a more specific pattern.` };
    throw error;
  }
  return { ok: true, hits, engine: "javascript" };
}
