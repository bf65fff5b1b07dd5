/** Which workspaces the service may touch: the real path under a configured root. */
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";
import { aideError } from "@aide/contracts";

/**
 * Resolves a requested workspace to its real path and checks it lies under one of the
 * configured roots (themselves resolved). Roots empty: any existing directory is accepted.
 */
export async function resolveWorkspace(requested: string, roots: readonly string[]): Promise<string> {
  if (!isAbsolute(requested)) throw aideError("WORKSPACE_NOT_FOUND", { workspace: requested });
  let real: string;
  let directory: boolean;
  try {
    real = await realpath(requested);
    directory = (await stat(real)).isDirectory();
  } catch {
    throw aideError("WORKSPACE_NOT_FOUND", { workspace: requested });
  }
  if (!directory) throw aideError("WORKSPACE_NOT_A_DIRECTORY", { workspace: requested });
  // Checkpointing the whole filesystem is never what anyone meant.
  if (real === "/") throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: requested });
  if (roots.length === 0) return real;
  for (const root of roots) {
    const realRoot = await realpath(root).catch(() => undefined);
    if (realRoot === undefined) continue;
    const rel = relative(realRoot, real);
    if (rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))) return real;
  }
  throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: requested });
}
