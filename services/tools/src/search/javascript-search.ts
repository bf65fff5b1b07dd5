import type { Dirent } from "node:fs";
import type { DirectoryHandle } from "../jail/directory-handle.js";
import type { Workspace } from "../jail/workspace.js";
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

async function readGitignore(workspace: Workspace, relativeDirectory: string): Promise<string | undefined> {
  const directory = workspace.reopenDirectory(relativeDirectory);
  if (directory === null) return undefined;
  try {
    return (await directory.readRegularFile(".gitignore"))?.toString("utf8");
  } finally {
    directory.close();
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
  const { workspace } = query;
  const gitInfo = workspace.reopenDirectory(".git/info");
  if (gitInfo !== null) {
    const exclude = await gitInfo.readRegularFile("exclude").finally(() => gitInfo.close());
    if (exclude !== undefined) rootIgnores.push(new IgnoreFile(exclude.toString("utf8")));
  }

  const searchData = (relativePath: string, data: Buffer | undefined) => {
    // Binary (a NUL in the first 8 KB) or unreadable: skipped, as ripgrep does.
    if (data === undefined || data.subarray(0, 8192).includes(0)) return;
    const matches = countMatches(data.toString("utf8"), regex);
    if (matches > 0) hits.push({ path: relativePath, matches });
  };

  // Every directory is opened inside its parent without following links, every file inside its directory.
  const walk = async (directory: DirectoryHandle, relativeDirectory: string, ignores: Array<{ base: string; file: IgnoreFile }>) => {
    if (query.signal?.aborted || Date.now() > deadline) throw new Error("timeout");
    const own = (await directory.readRegularFile(".gitignore"))?.toString("utf8");
    const scoped = own === undefined ? ignores : [...ignores, { base: relativeDirectory, file: new IgnoreFile(own) }];
    let entries: Dirent[] = [];
    try {
      entries = directory.entries();
    } catch {
      // unreadable: nothing to search
    }
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
      if (isDirectory) {
        const child = directory.openDirectory(entry.name);
        if (child.kind !== "directory") continue;
        try {
          await walk(child.handle, relativePath, scoped);
        } finally {
          child.handle.close();
        }
      } else if (entry.isFile() && (include === undefined || include(relativePath))) searchData(relativePath, await directory.readRegularFile(entry.name));
    }
  };

  try {
    const base = rootIgnores.map((file) => ({ base: ".", file }));
    // Ignore files of the directories above the target (inside the workspace) apply too.
    const parts = query.target === "." ? [] : query.target.split("/");
    for (let depth = 0; depth < parts.length; depth += 1) {
      const directory = depth === 0 ? "." : parts.slice(0, depth).join("/");
      const text = await readGitignore(workspace, directory);
      if (text !== undefined) base.push({ base: directory, file: new IgnoreFile(text) });
    }
    const target = await workspace.openDirectory(query.target);
    if (target.kind === "directory") {
      try {
        await walk(target.handle, target.relative, base);
      } finally {
        target.handle.close();
      }
    } else if (target.kind === "not-directory" && (include === undefined || include(target.relative))) {
      const data = await workspace.readFile(query.target).catch(() => null);
      searchData(target.relative, data ?? undefined);
    }
  } catch (error) {
    if ((error as Error).message === "timeout") return { ok: false, error: `The search timed out after ${query.timeoutMs} ms; search a smaller directory or a more specific pattern.` };
    throw error;
  }
  return { ok: true, hits, engine: "javascript" };
}
