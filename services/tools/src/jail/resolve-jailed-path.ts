import { lstat, readlink } from "node:fs/promises";
import type { Stats } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { aideError } from "@aide/contracts";

/** A path the jail resolved: real (symlinks followed as the kernel would), inside the workspace. */
export interface JailedPath {
  /** Absolute real path (the final component resolved if it was a symlink). */
  absolute: string;
  /** Workspace-relative with forward slashes; "." for the root itself. */
  relative: string;
  /** lstat of the resolved target, or null when it does not exist yet. */
  stats: Stats | null;
}

const maxSymlinkHops = 40;

/** Top-level names no tool may read or write (the agent's own state and the shadow repositories). */
export const deniedTopLevel = new Set([".aide"]);

function invalid(path: string, detail: string) {
  return aideError("PATH_INVALID", { path: JSON.stringify(path), detail }, { path });
}

export function checkPathSyntax(input: string): void {
  if (input.includes("\0")) throw invalid(input.replace(/\0/g, "\\0"), "it contains a NUL byte");
  if (input.trim() === "") throw invalid(input, "it is empty");
  if (input.startsWith("~")) throw invalid(input, "`~` is not expanded; use a path relative to the workspace root");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input) || /^file:/i.test(input)) throw invalid(input, "URLs are not paths; use a path relative to the workspace root");
  if (input.includes("\\")) throw invalid(input, "backslashes are not path separators here; use `/`");
  if (/^[a-z]:/i.test(input)) throw invalid(input, "drive letters are not paths here; use a path relative to the workspace root");
  if (input.length > 4096) throw invalid(input.slice(0, 64) + "…", "it is longer than 4096 characters");
}

interface WalkResult {
  path: string;
  /** The path (or an ancestor) does not exist; `path` is then the lexical continuation. */
  missing: boolean;
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR") throw invalid(path, "a component of the path is a file, not a directory");
    throw error;
  }
}

/**
 * Resolves components one by one from `start`, following symlinks exactly where the kernel would
 * (so `link/..` is the parent of the link's target, not the lexical parent), and never trusting the
 * lexically normalized string.
 */
async function walk(start: string, components: string[], input: string, hops: { count: number }): Promise<WalkResult> {
  let current = start;
  for (let index = 0; index < components.length; index += 1) {
    const component = components[index];
    if (component === "" || component === ".") continue;
    if (component === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, component);
    const stats = await lstatOrNull(next);
    if (stats === null) {
      const rest = components.slice(index + 1);
      if (rest.includes("..")) throw invalid(input, "`..` after a directory that does not exist");
      return { path: join(next, ...rest), missing: true };
    }
    if (stats.isSymbolicLink()) {
      hops.count += 1;
      if (hops.count > maxSymlinkHops) throw invalid(input, "too many levels of symbolic links");
      const target = await readlink(next);
      const resolved = await walk(isAbsolute(target) ? "/" : current, target.split("/"), input, hops);
      if (resolved.missing) {
        const rest = components.slice(index + 1);
        if (rest.includes("..")) throw invalid(input, "`..` after a directory that does not exist");
        return { path: join(resolved.path, ...rest), missing: true };
      }
      current = resolved.path;
      continue;
    }
    if (index < components.length - 1 && !stats.isDirectory()) {
      throw invalid(input, `\`${component}\` is a file, not a directory`);
    }
    current = next;
  }
  return { path: current, missing: false };
}

export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The path jail. `root` must already be a real path. Throws an AideError with PATH_INVALID,
 * PATH_OUTSIDE_WORKSPACE or PATH_DENIED before anything is read or written.
 */
export async function resolveJailedPath(root: string, input: string): Promise<JailedPath> {
  checkPathSyntax(input);
  const start = isAbsolute(input) ? "/" : root;
  const result = await walk(start, input.split("/"), input, { count: 0 });
  if (!isInside(root, result.path)) {
    throw aideError("PATH_OUTSIDE_WORKSPACE", { path: JSON.stringify(input) }, { path: input });
  }
  const relativePath = relative(root, result.path).split(sep).join("/") || ".";
  const top = relativePath.split("/")[0];
  if (deniedTopLevel.has(top)) {
    throw aideError("PATH_DENIED", { path: JSON.stringify(input), detail: "the agent's own state (.aide/) is off limits to tools" }, { path: input });
  }
  const stats = result.missing ? null : await lstatOrNull(result.path);
  return { absolute: result.path, relative: relativePath, stats };
}
