import type { Dirent } from "node:fs";
import type { DirectoryHandle } from "../jail/directory-handle.js";
import type { Workspace } from "../jail/workspace.js";

/** Never listed: version-control internals and the agent's own state. */
export const hiddenNames = new Set([".git", ".aide"]);
/** Listed but not descended into when recursive. */
export const notDescended = new Set(["node_modules", "__pycache__", ".venv", "venv", "dist", "build", "target", ".next", ".cache"]);

export interface WalkOptions {
  recursive: boolean;
  maxEntries: number;
  signal: AbortSignal;
}

/**
 * The entries below an opened directory, breadth first and sorted per folder (folders end with
 * `/`, symbolic links with `@`), each folder below opened again from the root without following
 * links (the jail's walk). Closes `start`. `capped` says the walk stopped at `maxEntries`.
 */
export function walkEntries(workspace: Workspace, start: DirectoryHandle, options: WalkOptions): { entries: string[]; capped: boolean } {
  const entries: string[] = [];
  let capped = false;
  const queue: Array<{ relative: string; prefix: string }> = [];
  let directory: DirectoryHandle | null = start;
  let prefix = "";
  while (directory !== null && !capped) {
    let dirents: Dirent[];
    try {
      dirents = directory.entries();
    } catch {
      dirents = [];
    } finally {
      directory.close();
    }
    const here = directory.relative;
    dirents.sort((a, b) => a.name.localeCompare(b.name));
    for (const dirent of dirents) {
      if (hiddenNames.has(dirent.name)) continue;
      if (entries.length >= options.maxEntries) {
        capped = true;
        break;
      }
      const name = prefix + dirent.name;
      if (dirent.isDirectory()) {
        entries.push(`${name}/`);
        if (options.recursive && !notDescended.has(dirent.name)) queue.push({ relative: here === "." ? dirent.name : `${here}/${dirent.name}`, prefix: `${name}/` });
      } else if (dirent.isSymbolicLink()) entries.push(`${name}@`);
      else entries.push(name);
    }
    directory = null;
    while (directory === null && !capped && queue.length > 0 && !options.signal.aborted) {
      const next = queue.shift()!;
      directory = workspace.reopenDirectory(next.relative);
      prefix = next.prefix;
    }
  }
  return { entries, capped };
}
