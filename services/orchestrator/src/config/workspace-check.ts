import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { aideError } from "@aide/contracts";

/**
 * Resolves a start request's workspace and checks it lies inside one of the configured roots
 * (symlinks resolved on both sides). Throws WORKSPACE_NOT_FOUND or WORKSPACE_NOT_ALLOWED.
 */
export function checkWorkspace(workspace: string, roots: string[]): string {
  if (!isAbsolute(workspace)) throw aideError("WORKSPACE_NOT_FOUND", { workspace });
  let real: string;
  try {
    real = realpathSync(resolve(workspace));
    if (!statSync(real).isDirectory()) throw new Error("not a directory");
  } catch {
    throw aideError("WORKSPACE_NOT_FOUND", { workspace });
  }
  if (roots.length === 0) return real;
  const inside = roots.some((root) => {
    let realRoot: string;
    try {
      realRoot = realpathSync(root);
    } catch {
      return false;
    }
    const rel = relative(realRoot, real);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
  if (!inside) throw aideError("WORKSPACE_NOT_ALLOWED", { workspace });
  return real;
}
