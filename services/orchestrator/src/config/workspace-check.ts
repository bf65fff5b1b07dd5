import { isAbsolute, relative, resolve } from "node:path";
import { aideError } from "@aide/contracts";

/**
 * Normalizes a start request's workspace and checks it lies inside one of the configured roots.
 * Lexical on purpose: the orchestrator has no workspace access under its sandbox profile (issue 8);
 * the tools and checkpoints services resolve symlinks and enforce their own roots on every call.
 */
export function checkWorkspace(workspace: string, roots: string[]): string {
  if (!isAbsolute(workspace) || workspace.includes("\0")) throw aideError("WORKSPACE_NOT_FOUND", { workspace });
  const normalized = resolve(workspace);
  if (roots.length === 0) return normalized;
  const inside = roots.some((root) => {
    const rel = relative(resolve(root), normalized);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
  if (!inside) throw aideError("WORKSPACE_NOT_ALLOWED", { workspace });
  return normalized;
}
