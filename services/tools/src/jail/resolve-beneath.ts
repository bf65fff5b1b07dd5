import type { Stats } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import { aideError } from "@aide/contracts";
import { DirectoryHandle } from "./directory-handle.js";
import { checkPathSyntax, pathInvalid } from "./path-syntax.js";

/** The workspace root: its real path and the identity of the directory found there at the start. */
export interface WorkspaceRoot {
  path: string;
  device: number;
  inode: number;
}

/** Where a path leads, held open: nothing between this and the use can be swapped. */
export interface Beneath {
  /** The directory holding the target, or the target itself when `name` is null. The caller closes it. */
  directory: DirectoryHandle;
  /** The final entry inside `directory` (never a symlink unless `followFinal` is false); null when the path names `directory` itself or a parent is missing. */
  name: string | null;
  /** Workspace-relative real path (forward slashes, "." for the root); for a missing parent, the lexical continuation. */
  relative: string;
  /** lstat of the target; null when it does not exist. */
  stats: Stats | null;
  /** A directory on the way does not exist (and `createParents` was not asked). */
  parentMissing: boolean;
}

export interface ResolveOptions {
  /** Create missing directories on the way, each inside its verified parent (for writes). */
  createParents?: boolean;
  /** "directory": the final component must be a directory, and it is opened (`name` is then null). */
  final?: "entry" | "directory";
  /** false: a final symlink is the target itself (for deleting or renaming the link). Default true. */
  followFinal?: boolean;
}

const maxSymlinkHops = 40;
/** A component that keeps changing kind while it is looked at (a racer) ends the walk after this. */
const maxRetries = 100;

/** Top-level names no tool may read or write (the agent's own state and the shadow repositories). */
export const deniedTopLevel = new Set([".aide"]);

/**
 * Opens a directory found by a walk (list_dir, search, changed-since) again by its real
 * workspace-relative path: each component a directory opened with O_NOFOLLOW inside the one
 * before, no symlink followed. Null when it is no longer a directory there.
 */
export function reopenDirectory(root: WorkspaceRoot, relative: string): DirectoryHandle | null {
  let current = openRoot(root);
  for (const name of relative === "." ? [] : relative.split("/")) {
    const child = current.openDirectory(name);
    current.close();
    if (child.kind !== "directory") return null;
    current = child.handle;
  }
  return current;
}

export function openRoot(root: WorkspaceRoot): DirectoryHandle {
  const handle = DirectoryHandle.openPath(root.path, ".");
  const stats = handle.stat();
  if (stats.dev !== root.device || stats.ino !== root.inode) {
    handle.close();
    throw aideError("WORKSPACE_NOT_FOUND", { workspace: JSON.stringify(root.path) });
  }
  return handle;
}

/**
 * The path jail: walks `input` one component at a time from an open descriptor of the workspace
 * root, opening each directory with O_NOFOLLOW|O_DIRECTORY inside the one before it. A symlink is
 * followed only by reading its target and walking that the same way (so `link/..` is the parent
 * of the link's target, as in the kernel); the walk may pass through the root's own ancestors by
 * name (they are real directories outside anyone's reach here) but any other step out of the root
 * is PATH_OUTSIDE_WORKSPACE. Throws PATH_INVALID, PATH_OUTSIDE_WORKSPACE or PATH_DENIED.
 */
export function resolveBeneath(root: WorkspaceRoot, input: string, options: ResolveOptions = {}): Beneath {
  checkPathSyntax(input);
  const queue = input.split("/");
  let above: string | null = isAbsolute(input) ? "/" : null;
  const stack: DirectoryHandle[] = above === null ? [openRoot(root)] : [];
  let kept: DirectoryHandle | undefined;
  let hops = 0;
  let retries = 0;
  const outside = () => aideError("PATH_OUTSIDE_WORKSPACE", { path: JSON.stringify(input) }, { path: input });
  const retry = (component: string) => {
    retries += 1;
    if (retries > maxRetries) throw pathInvalid(input, "the path kept changing while it was resolved; try again");
    queue.unshift(component);
  };
  const follow = (directory: DirectoryHandle, component: string) => {
    const target = directory.readlink(component);
    if (target === null) return retry(component);
    hops += 1;
    if (hops > maxSymlinkHops) throw pathInvalid(input, "too many levels of symbolic links");
    if (target === "") throw pathInvalid(input, `\`${component}\` is a symlink with an empty target`);
    if (isAbsolute(target)) {
      for (const handle of stack.splice(0)) handle.close();
      above = "/";
    }
    queue.unshift(...target.split("/"));
  };
  const finish = (directory: DirectoryHandle, name: string | null, stats: Stats | null, parentMissing = false, rest: string[] = []): Beneath => {
    const parts = [name === null ? directory.relative : directory.childRelative(name), ...rest].filter((part) => part !== "" && part !== ".");
    const relative = parts.length === 0 ? "." : parts.join("/");
    if (deniedTopLevel.has(relative.split("/")[0])) {
      throw aideError("PATH_DENIED", { path: JSON.stringify(input), detail: "the agent's own state (.aide/) is off limits to tools" }, { path: input });
    }
    kept = directory;
    return { directory, name, relative, stats, parentMissing };
  };
  try {
    while (queue.length > 0) {
      const component = queue.shift()!;
      if (component === "" || component === ".") continue;
      if (above !== null) {
        if (component === "..") {
          above = dirname(above);
          continue;
        }
        const next = above === "/" ? `/${component}` : `${above}/${component}`;
        if (next === root.path) {
          stack.push(openRoot(root));
          above = null;
        } else if (root.path.startsWith(`${next}/`)) above = next;
        else throw outside();
        continue;
      }
      const top = stack[stack.length - 1];
      if (component === "..") {
        stack.pop()!.close();
        if (stack.length === 0) above = dirname(root.path);
        continue;
      }
      const final = queue.every((part) => part === "" || part === ".");
      if (final && options.final !== "directory") {
        const stats = top.lstat(component);
        if (stats?.isSymbolicLink() && options.followFinal !== false) {
          follow(top, component);
          continue;
        }
        return finish(top, component, stats);
      }
      const child = top.openDirectory(component);
      switch (child.kind) {
        case "directory":
          stack.push(child.handle);
          continue;
        case "symlink":
          follow(top, component);
          continue;
        case "changed":
          retry(component);
          continue;
        case "missing":
          if (options.createParents === true && !final) {
            top.makeDirectory(component);
            retry(component);
            continue;
          }
          if (queue.includes("..")) throw pathInvalid(input, "`..` after a directory that does not exist");
          return final ? finish(top, component, null) : finish(top, null, null, true, [component, ...queue]);
        case "not-directory":
          if (final) return finish(top, component, top.lstat(component));
          throw pathInvalid(input, `\`${component}\` is a file, not a directory`);
        default: {
          const unreachable: never = child;
          throw new Error(`unexpected ${JSON.stringify(unreachable)}`);
        }
      }
    }
    if (above !== null) throw outside();
    const top = stack[stack.length - 1];
    return finish(top, null, top.stat());
  } finally {
    for (const handle of stack) if (handle !== kept) handle.close();
  }
}
