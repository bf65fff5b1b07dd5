import { dirname, join, relative, sep } from "node:path";
import { pathIdentity, type CurrentGitScan } from "../files/git-directory-cache.js";
import { defaultGitScanLimits } from "@aide/runtime";

/** Folders the scan does not search (and the listing's `find` prunes): a cwd inside one is not cached. */
const unscanned = new Set(["node_modules", ".aide"]);
/** How deep below its cwd the listing looks for nested repositories (`find -maxdepth 4`). */
const listingDepth = 4;
/** The files of a git directory that decide what `git config --list` says (HEAD: `onbranch:` includes). */
const configFiles = ["config", "config.worktree", "HEAD", "commondir"];

/**
 * The identity of everything the configuration listing for `cwd` reads: each repository's git
 * directory and its config files (path, inode, times, size), the `.git` of every folder from the
 * cwd up to the workspace root, and the scan those repositories came from. Undefined when the
 * listing may read something this cannot name, so it must run: an incomplete scan, a repository
 * whose git directory lies outside the workspace, a linked worktree (`commondir`), a cwd the scan
 * does not cover (inside a dependency folder, too deep, inside a git directory).
 */
export function configurationKey(scan: CurrentGitScan, root: string, cwd: string): string | undefined {
  if (!scan.complete || scan.leftOut > 0) return undefined;
  const segments = relative(root, cwd)
    .split(sep)
    .filter((segment) => segment !== "");
  if (segments.some((segment) => segment === ".." || unscanned.has(segment))) return undefined;
  if (segments.length + listingDepth > defaultGitScanLimits.maxDepth) return undefined;
  const parts: string[] = [];
  for (const git of [...scan.directories].sort((a, b) => (a.directory < b.directory ? -1 : 1))) {
    if (cwd === git.directory || cwd.startsWith(git.directory + sep)) return undefined;
    parts.push(git.directory, pathIdentity(git.directory));
    for (const name of configFiles) {
      const seen = pathIdentity(join(git.directory, name));
      if (name === "commondir" && seen !== "-") return undefined;
      parts.push(seen);
    }
    if (git.pointerFile !== undefined) parts.push(git.pointerFile, pathIdentity(git.pointerFile));
  }
  for (let folder = cwd; ; folder = dirname(folder)) {
    parts.push(folder, pathIdentity(join(folder, ".git")), pathIdentity(join(folder, "config")));
    if (folder === root || dirname(folder) === folder) break;
  }
  return parts.join("\n");
}

/** Names an include can pull any file in through: a listing that has one is never reused. */
export function hasIncludes(names: readonly string[]): boolean {
  return names.some((name) => {
    const lower = name.trim().toLowerCase();
    return lower.startsWith("include.") || lower.startsWith("includeif.");
  });
}

export interface ConfigurationCache {
  get(root: string, cwd: string, key: string): string[] | undefined;
  set(root: string, cwd: string, key: string, names: string[]): void;
}

/** The config names listed per (workspace, cwd), reused only under the same configuration key. */
export function createConfigurationCache(maxEntries = 256): ConfigurationCache {
  const entries = new Map<string, { key: string; names: string[] }>();
  return {
    get(root, cwd, key) {
      const entry = entries.get(`${root}\0${cwd}`);
      return entry !== undefined && entry.key === key ? entry.names : undefined;
    },
    set(root, cwd, key, names) {
      const id = `${root}\0${cwd}`;
      entries.delete(id);
      entries.set(id, { key, names });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
}
