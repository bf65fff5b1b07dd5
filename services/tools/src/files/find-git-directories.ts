import { open, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

/** One repository's git directory inside the workspace. */
export interface GitDirectory {
  /** Real absolute path of the git directory. */
  directory: string;
  /** The same, workspace-relative with forward slashes. */
  relative: string;
  /** The `.git` file that points at it (`gitdir: …`), when it is reached through one. */
  pointerFile?: string;
}

export interface GitDirectoryScan {
  directories: GitDirectory[];
  /** False when the entry or depth bound cut the scan short: deeper repositories may be missed. */
  complete: boolean;
}

export interface GitDirectoryScanLimits {
  maxEntries: number;
  maxDepth: number;
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

export const defaultGitScanLimits: GitDirectoryScanLimits = { maxEntries: 20_000, maxDepth: 12 };

/** Folders never searched for repositories: dependency trees and the agent's own state. */
const skipped = new Set(["node_modules", ".aide"]);

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function pointerTarget(file: string): Promise<string | undefined> {
  const handle = await open(file, "r").catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(buffer.subarray(0, bytesRead).toString("utf8"));
    return match?.[1] === undefined ? undefined : resolve(dirname(file), match[1]);
  } finally {
    await handle.close();
  }
}

/**
 * Every git directory of a repository in the workspace, however it is reached: a `.git` folder,
 * a `.git` file whose `gitdir:` points inside the workspace (`gitdir: .gitstore`), or a folder
 * that is itself a git directory (HEAD, objects/ and refs/: a bare repository or a gitdir whose
 * pointer file is gone). Bounded (entries and depth); symlinks are not followed. A pointer to
 * outside the workspace is left out: it cannot be protected from here.
 */
export async function findGitDirectories(root: string, limits: GitDirectoryScanLimits = defaultGitScanLimits, observer?: GitScanObserver): Promise<GitDirectoryScan> {
  const found = new Map<string, GitDirectory>();
  let entriesSeen = 0;
  let complete = true;
  const add = async (candidate: string, pointerFile?: string) => {
    observer?.followed(candidate);
    const real = await realpath(candidate).catch(() => undefined);
    // Outside the workspace, or not there (yet): a cache cannot tell when what it points at changes.
    if (real === undefined || !inside(root, real)) observer?.leftOut?.(candidate);
    if (real === undefined || !inside(root, real) || found.has(real)) return;
    found.set(real, { directory: real, relative: relative(root, real).split(sep).join("/"), ...(pointerFile !== undefined ? { pointerFile } : {}) });
  };
  let level: Array<{ directory: string; depth: number }> = [{ directory: root, depth: 0 }];
  while (level.length > 0) {
    const next: typeof level = [];
    for (const { directory, depth } of level) {
      observer?.folder(directory);
      const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
      entriesSeen += entries.length;
      if (entriesSeen > limits.maxEntries) {
        complete = false;
        break;
      }
      const names = new Map(entries.map((entry) => [entry.name, entry]));
      if (names.get("HEAD")?.isFile() && names.get("objects")?.isDirectory() && names.get("refs")?.isDirectory()) {
        await add(directory);
        continue;
      }
      for (const entry of entries) {
        const path = join(directory, entry.name);
        if (entry.name === ".git") {
          // A symlinked .git is followed once (git follows it too), and only to inside the workspace.
          if (entry.isSymbolicLink()) observer?.followed(path);
          const kind = entry.isSymbolicLink() ? await stat(path).then((stats) => (stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other"), () => "other") : entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other";
          if (kind === "directory") await add(path);
          else if (kind === "file") {
            observer?.followed(path);
            const target = await pointerTarget(path);
            if (target !== undefined) await add(target, path);
          }
          continue;
        }
        if (!entry.isDirectory() || skipped.has(entry.name)) continue;
        if (depth + 1 > limits.maxDepth) complete = false;
        else next.push({ directory: path, depth: depth + 1 });
      }
    }
    if (!complete && entriesSeen > limits.maxEntries) break;
    level = next;
  }
  return { directories: [...found.values()], complete };
}
