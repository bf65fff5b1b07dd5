import { realpath, stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { aideError } from "@aide/contracts";
import { isInside, resolveJailedPath, type JailedPath } from "./resolve-jailed-path.js";

/** A workspace root that passed the checks; every path argument goes through `resolve`. */
export interface Workspace {
  /** Real path of the root. */
  root: string;
  resolve(input: string): Promise<JailedPath>;
}

/** Directories that are never a workspace: the system itself, or a whole home or temp directory. */
const notWorkspaces = new Set(["/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/boot", "/dev", "/proc", "/sys", "/var", "/run", "/root", "/home", "/tmp", "/opt", "/srv", "/mnt", "/media"]);
const neverInside = ["/proc", "/sys", "/dev", "/etc", "/boot", "/run"];

export function isSystemDirectory(root: string, home: string | undefined = process.env.HOME): boolean {
  if (notWorkspaces.has(root)) return true;
  if (home !== undefined && root === home.replace(/\/$/, "")) return true;
  return neverInside.some((dir) => isInside(dir, root));
}

/**
 * Validates the request's workspace: absolute, an existing directory, not a system, home or temp
 * directory itself, and (when roots are configured with AIDE_WORKSPACE_ROOTS) inside one of them
 * after symlink resolution.
 */
export async function openWorkspace(input: string, allowedRoots: readonly string[]): Promise<Workspace> {
  if (!isAbsolute(input) || input.includes("\0")) throw aideError("WORKSPACE_NOT_FOUND", { workspace: JSON.stringify(input) });
  let root: string;
  try {
    root = await realpath(input);
    if (!(await stat(root)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw aideError("WORKSPACE_NOT_FOUND", { workspace: JSON.stringify(input) });
  }
  if (isSystemDirectory(root)) throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: JSON.stringify(input) });
  if (allowedRoots.length > 0) {
    const reals = await Promise.all(allowedRoots.map((r) => realpath(r).catch(() => null)));
    if (!reals.some((r) => r !== null && isInside(r, root))) {
      throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: JSON.stringify(input) });
    }
  }
  return { root, resolve: (path) => resolveJailedPath(root, path) };
}
