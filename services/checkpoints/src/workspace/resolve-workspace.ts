/** Which workspaces the service may touch: the real path under a configured root. */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { aideError, workspaceOnDiskTooBroadError } from "@aide/contracts";
import { homeWorkspaceRuleFromEnv, type HomeWorkspaceRule } from "@aide/runtime";

/**
 * Resolves a requested workspace to its real path and checks it lies under one of the
 * configured roots (themselves resolved), and that the home-folder rule of `aide up` and the
 * orchestrator does not refuse it (WORKSPACE_TOO_BROAD: a caller on the bus may skip those). Roots
 * empty: any existing directory but those is accepted.
 */
export async function resolveWorkspace(requested: string, roots: readonly string[], homeRule: HomeWorkspaceRule = homeWorkspaceRuleFromEnv()): Promise<string> {
  if (!isAbsolute(requested)) throw aideError("WORKSPACE_NOT_FOUND", { workspace: requested });
  let real: string;
  let directory: boolean;
  // Synchronous: two short syscalls, where each thread-pool round trip costs an event-loop turn per request.
  try {
    real = realpathSync.native(requested);
    directory = statSync(real).isDirectory();
  } catch {
    throw aideError("WORKSPACE_NOT_FOUND", { workspace: requested });
  }
  if (!directory) throw aideError("WORKSPACE_NOT_A_DIRECTORY", { workspace: requested });
  const tooBroad = workspaceOnDiskTooBroadError(requested, real, homeRule);
  if (tooBroad) throw tooBroad;
  // Checkpointing the whole filesystem is never what anyone meant.
  if (real === "/") throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: requested });
  if (roots.length === 0) return real;
  for (const root of roots) {
    let realRoot: string;
    try {
      realRoot = realpathSync.native(root);
    } catch {
      continue;
    }
    const rel = relative(realRoot, real);
    if (rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))) return real;
  }
  throw aideError("WORKSPACE_NOT_ALLOWED", { workspace: requested });
}
