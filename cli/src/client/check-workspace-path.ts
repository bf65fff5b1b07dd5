import { statSync } from "node:fs";
import { formatErrorMessage, workspaceTooBroadError, type ErrorCode } from "@aide/contracts";

/**
 * `aide run`'s check of its workspace before it starts a stack or a session: a missing path, a
 * file, or a folder too broad for an agent is refused as such, with the catalog's code. The
 * orchestrator checks the folder rule again at the start (it is the authority; this check only
 * saves a stack start), and the tools and checkpoints services the path on every call.
 */
export function checkWorkspacePath(workspace: string, options: { home?: string; stackStarted?: boolean } = {}): { code: ErrorCode; message: string } | undefined {
  const home = options.home ?? process.env.HOME;
  let directory: boolean;
  try {
    directory = statSync(workspace).isDirectory();
  } catch {
    return { code: "WORKSPACE_NOT_FOUND", message: formatErrorMessage("WORKSPACE_NOT_FOUND", { workspace }) };
  }
  if (!directory) return { code: "WORKSPACE_NOT_A_DIRECTORY", message: formatErrorMessage("WORKSPACE_NOT_A_DIRECTORY", { workspace }) };
  // With a running stack an overridable folder is left to its orchestrator, which knows whether
  // that stack allows it; the stack `aide run` would start does not.
  const tooBroad = workspaceTooBroadError(workspace, home, options.stackStarted !== true);
  return tooBroad ? { code: "WORKSPACE_TOO_BROAD", message: tooBroad.message } : undefined;
}
