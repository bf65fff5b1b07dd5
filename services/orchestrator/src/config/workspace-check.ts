import { isAbsolute, relative, resolve } from "node:path";
import { AideError, aideError, formatErrorMessage, workspaceTooBroadError } from "@aide/contracts";

/** Where a start request's workspace may be: the roots, and the home-folder rule's settings. */
export interface WorkspaceScope {
  /** AIDE_WORKSPACE_ROOTS; empty: any folder (but the broad ones). */
  roots: string[];
  /** The user's home directory (HOME), for the too-broad folders. */
  home?: string;
  /** AIDE_ALLOW_HOME_WORKSPACE: accept ~/Documents, ~/Desktop and ~/Downloads themselves. */
  allowHomeWorkspace?: boolean;
}

/**
 * Normalizes a start request's workspace and checks it: not `/`, `$HOME` or its Documents, Desktop
 * and Downloads folders themselves (WORKSPACE_TOO_BROAD), and inside one of the configured roots
 * (WORKSPACE_NOT_ALLOWED, naming them and how to add one). Lexical on purpose: the orchestrator has
 * no workspace access under its sandbox profile (cli/src/supervisor/sandbox-profiles.ts); the tools and checkpoints services
 * resolve symlinks, refuse a missing path or a file, and enforce their own roots on every call.
 */
export function checkWorkspace(workspace: string, scope: WorkspaceScope | string[]): string {
  const { roots, home, allowHomeWorkspace } = Array.isArray(scope) ? { roots: scope, home: undefined, allowHomeWorkspace: false } : scope;
  if (!isAbsolute(workspace) || workspace.includes("\0")) throw aideError("WORKSPACE_NOT_FOUND", { workspace });
  const normalized = resolve(workspace);
  const tooBroad = workspaceTooBroadError(normalized, home, allowHomeWorkspace);
  if (tooBroad) throw tooBroad;
  if (roots.length === 0) return normalized;
  const inside = roots.some((root) => {
    const rel = relative(resolve(root), normalized);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
  if (!inside) {
    const message = `${formatErrorMessage("WORKSPACE_NOT_ALLOWED", { workspace: normalized })} (${roots.join(", ")}); add a root with aide up --workspace DIR (repeatable; AIDE_WORKSPACE_ROOTS for the services)`;
    throw new AideError("WORKSPACE_NOT_ALLOWED", message, { roots });
  }
  return normalized;
}
