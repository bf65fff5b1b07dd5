/**
 * The one walk that finds the repositories' git directories under a workspace root. The tools
 * service scans for every way a git directory is reached (to protect it from a command and to
 * cache the answer); the supervisor and the MCP service only need the `.git` (and `.aide`) folders
 * to bind read-only in a sandbox, and build their argument lists synchronously. So the walk is one
 * generator that asks for file-system answers, run by an asynchronous and a synchronous driver:
 * the rule and the bounds live here once, each caller passes its own.
 */
import type { Dirent } from "node:fs";
import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { open, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

/** One repository's git directory inside the workspace. */
export interface GitDirectory {
  /** Absolute path of the git directory: its real path when `reach` is "any", as walked otherwise. */
  directory: string;
  /** The same, workspace-relative with forward slashes. */
  relative: string;
  /** The `.git` file that points at it (`gitdir: …`), when it is reached through one. */
  pointerFile?: string;
}

export interface GitDirectoryScan {
  directories: GitDirectory[];
  /** False when a bound (entries, depth, count) cut the scan short: deeper repositories may be missed. */
  complete: boolean;
}

export interface GitDirectoryScanLimits {
  /** Folders this deep below the root are still read (the root is depth 0). */
  maxDepth: number;
  /** Directory entries read in all before the scan stops. */
  maxEntries: number;
  /** The scan stops reading folders once this many were found. */
  maxFound?: number;
}

/**
 * Told of every folder just before the scan reads it and of every file or link it follows (a
 * `.git` pointer file, a symlinked `.git`), so a cache can later tell the scan would see the same.
 */
export interface GitScanObserver {
  folder(path: string): void;
  followed(path: string): void;
  /** A repository reached from the workspace whose git directory is outside it or missing (left out of the scan). */
  leftOut?(path: string): void;
}

export interface GitDirectoryScanOptions {
  limits?: GitDirectoryScanLimits;
  /**
   * "any" (the default): a `.git` folder, a symlinked `.git` followed once to inside the root, a
   * `.git` file whose `gitdir:` points inside the root, and a folder that is itself a git directory
   * (HEAD, objects/ and refs/); found by real path. "folders": only real folders with one of
   * `names`, as walked (a symlink a repository planted must not pick a bind-mount source).
   */
  reach?: "any" | "folders";
  /** The folder names that are found, for `reach: "folders"` (default `.git`). */
  names?: readonly string[];
  /** Folders never searched (default: node_modules and the agent's own `.aide`). */
  skipped?: readonly string[];
  observer?: GitScanObserver;
}

/** The bounds of the tools service's scan. */
export const defaultGitScanLimits: GitDirectoryScanLimits = { maxEntries: 20_000, maxDepth: 12 };

const defaultSkipped = ["node_modules", ".aide"];

type EntryKind = "directory" | "file" | "other";

/** What the walk asks of the file system; each driver answers the same way, failures included. */
type FileSystemRequest =
  | { kind: "list"; path: string } // Dirent[]; [] when unreadable
  | { kind: "realpath"; path: string } // string; undefined when missing
  | { kind: "stat"; path: string } // EntryKind, following a link; "other" when missing
  | { kind: "pointer"; path: string }; // the absolute `gitdir:` target of a `.git` file, or undefined

type Walk<T> = Generator<FileSystemRequest, T, unknown>;

function* ask<T>(request: FileSystemRequest): Walk<T> {
  return (yield request) as T;
}

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

function relativePath(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}

function* walkGitDirectories(root: string, options: GitDirectoryScanOptions): Walk<GitDirectoryScan> {
  const limits = options.limits ?? defaultGitScanLimits;
  const maxFound = limits.maxFound ?? Number.POSITIVE_INFINITY;
  const skipped = new Set(options.skipped ?? defaultSkipped);
  const names = new Set(options.names ?? [".git"]);
  const reachAny = (options.reach ?? "any") === "any";
  const observer = options.observer;
  const found = new Map<string, GitDirectory>();
  let entriesSeen = 0;
  let complete = true;
  const add = function* (candidate: string, pointerFile?: string): Walk<void> {
    observer?.followed(candidate);
    const real = yield* ask<string | undefined>({ kind: "realpath", path: candidate });
    // Outside the workspace, or not there (yet): a cache cannot tell when what it points at changes.
    if (real === undefined || !inside(root, real)) observer?.leftOut?.(candidate);
    if (real === undefined || !inside(root, real) || found.has(real)) return;
    found.set(real, { directory: real, relative: relativePath(root, real), ...(pointerFile !== undefined ? { pointerFile } : {}) });
  };
  let level: Array<{ directory: string; depth: number }> = [{ directory: root, depth: 0 }];
  scan: while (level.length > 0) {
    const next: typeof level = [];
    for (const { directory, depth } of level) {
      if (found.size >= maxFound) {
        complete = false;
        break scan;
      }
      observer?.folder(directory);
      const entries = yield* ask<Dirent[]>({ kind: "list", path: directory });
      entriesSeen += entries.length;
      if (entriesSeen > limits.maxEntries) {
        complete = false;
        break scan;
      }
      const byName = new Map(entries.map((entry) => [entry.name, entry]));
      if (reachAny && byName.get("HEAD")?.isFile() && byName.get("objects")?.isDirectory() && byName.get("refs")?.isDirectory()) {
        yield* add(directory);
        continue;
      }
      for (const entry of entries) {
        const path = join(directory, entry.name);
        if (!reachAny && names.has(entry.name)) {
          // A symlink's entry is not a directory: it is neither found nor walked.
          if (entry.isDirectory() && !found.has(path)) found.set(path, { directory: path, relative: relativePath(root, path) });
          continue;
        }
        if (reachAny && entry.name === ".git") {
          // A symlinked .git is followed once (git follows it too), and only to inside the workspace.
          if (entry.isSymbolicLink()) observer?.followed(path);
          const kind = entry.isSymbolicLink() ? yield* ask<EntryKind>({ kind: "stat", path }) : entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other";
          if (kind === "directory") yield* add(path);
          else if (kind === "file") {
            observer?.followed(path);
            const target = yield* ask<string | undefined>({ kind: "pointer", path });
            if (target !== undefined) yield* add(target, path);
          }
          continue;
        }
        if (!entry.isDirectory() || skipped.has(entry.name)) continue;
        if (depth + 1 > limits.maxDepth) complete = false;
        else next.push({ directory: path, depth: depth + 1 });
      }
    }
    level = next;
  }
  return { directories: [...found.values()], complete };
}

const gitdirLine = /^gitdir:\s*(.+?)\s*$/m;

function pointerFrom(file: string, text: string): string | undefined {
  const match = gitdirLine.exec(text);
  return match?.[1] === undefined ? undefined : resolve(dirname(file), match[1]);
}

function kindOf(stats: { isDirectory(): boolean; isFile(): boolean }): EntryKind {
  return stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other";
}

async function answer(request: FileSystemRequest): Promise<unknown> {
  switch (request.kind) {
    case "list":
      return readdir(request.path, { withFileTypes: true }).catch(() => []);
    case "realpath":
      return realpath(request.path).catch(() => undefined);
    case "stat":
      return stat(request.path).then(kindOf, () => "other");
    case "pointer": {
      const handle = await open(request.path, "r").catch(() => undefined);
      if (handle === undefined) return undefined;
      try {
        const buffer = Buffer.alloc(4096);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        return pointerFrom(request.path, buffer.subarray(0, bytesRead).toString("utf8"));
      } finally {
        await handle.close();
      }
    }
    default: {
      const unknown: never = request;
      throw new Error(`unknown file-system request ${JSON.stringify(unknown)}`);
    }
  }
}

function answerSync(request: FileSystemRequest): unknown {
  try {
    switch (request.kind) {
      case "list":
        return readdirSync(request.path, { withFileTypes: true });
      case "realpath":
        return realpathSync(request.path);
      case "stat":
        return kindOf(statSync(request.path));
      case "pointer": {
        const descriptor = openSync(request.path, "r");
        try {
          const buffer = Buffer.alloc(4096);
          const bytesRead = readSync(descriptor, buffer, 0, buffer.length, 0);
          return pointerFrom(request.path, buffer.subarray(0, bytesRead).toString("utf8"));
        } finally {
          closeSync(descriptor);
        }
      }
      default: {
        const unknown: never = request;
        throw new Error(`unknown file-system request ${JSON.stringify(unknown)}`);
      }
    }
  } catch {
    return request.kind === "list" ? [] : request.kind === "stat" ? "other" : undefined;
  }
}

/**
 * Every git directory of a repository under `root`, breadth first, bounded (entries, depth and
 * count); symlinks are not walked. With `reach: "any"` a pointer to outside the root is left out:
 * it cannot be protected from here. Never throws for an unreadable folder (it is skipped).
 */
export async function findGitDirectories(root: string, options: GitDirectoryScanOptions = {}): Promise<GitDirectoryScan> {
  const walk = walkGitDirectories(root, options);
  let step = walk.next();
  while (!step.done) step = walk.next(await answer(step.value));
  return step.value;
}

/** The same walk with synchronous file-system calls, for argument lists built synchronously. */
export function findGitDirectoriesSync(root: string, options: GitDirectoryScanOptions = {}): GitDirectoryScan {
  const walk = walkGitDirectories(root, options);
  let step = walk.next();
  while (!step.done) step = walk.next(answerSync(step.value));
  return step.value;
}
