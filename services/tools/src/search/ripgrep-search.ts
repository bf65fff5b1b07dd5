import { execa } from "execa";
import type { SearchOutcome, SearchQuery } from "./search-types.js";
import { excludedDirectories } from "./search-types.js";
import { includeMatcher } from "./glob-to-regexp.js";

/**
 * ripgrep with the settings the JS fallback reproduces: .gitignore honoured even outside a git
 * repository, hidden files searched, .ignore/.rgignore and global excludes not used, symlinks not
 * followed, binary files skipped, CRLF a line end (`foo$` matches `foo\r\n`).
 */
export async function ripgrepSearch(query: SearchQuery): Promise<SearchOutcome> {
  const args = ["--count-matches", "--no-messages", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-global", "--no-config", "--color", "never", "--with-filename", "--crlf"];
  for (const directory of excludedDirectories) args.push("--glob", `!${directory}`);
  if (query.literal) args.push("--fixed-strings");
  if (query.caseInsensitive) args.push("--ignore-case");
  args.push("--regexp", query.pattern, "--", query.target);
  const command = query.ripgrepCommand?.(args, query.root) ?? { file: "rg", args };
  const result = await execa(command.file, command.args, {
    cwd: query.root,
    reject: false,
    timeout: query.timeoutMs,
    cancelSignal: query.signal,
    maxBuffer: 64 * 1024 * 1024,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdin: "ignore",
  });
  if (result.exitCode === 2 && String(result.stdout) === "") {
    const message = String(result.stderr).trim();
    return { ok: false, error: message.includes("regex") ? `The pattern is not a valid regular expression:\n${message.slice(0, 800)}` : `ripgrep failed: ${message.slice(0, 800)}` };
  }
  if (result.timedOut) return { ok: false, error: `The search timed out after ${query.timeoutMs} ms; search a smaller directory or a more specific pattern.` };
  const hits = String(result.stdout)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const colon = line.lastIndexOf(":");
      const path = line.slice(0, colon).replace(/^\.\//, "");
      return { path, matches: Number(line.slice(colon + 1)) };
    });
  // An rg --glob would override .gitignore; filtering here keeps the fallback's semantics.
  const include = query.include !== undefined ? includeMatcher(query.include) : undefined;
  return { ok: true, hits: include === undefined ? hits : hits.filter((hit) => include(hit.path)), engine: "ripgrep" };
}
