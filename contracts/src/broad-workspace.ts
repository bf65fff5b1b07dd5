/**
 * Folders too broad to hand to an agent as a workspace: `/`, the home directory itself, and the
 * home's Documents, Desktop and Downloads folders (every file in them could be read, changed or
 * restored by a session). A pure, lexical rule shared by the orchestrator (the authority, at
 * `agent.cmd.start`), the CLI (which checks before it starts anything), and the tools and
 * checkpoints services (on every call: their bus subjects are reachable without the orchestrator).
 */
import { aideError, type AideError } from "./errors.js";

export interface BroadWorkspace {
  /** What the folder is, for the message: "the filesystem root", "your home directory", "~/Documents". */
  what: string;
  /** Whether `allow_home_workspace` (aide up --allow-home-workspace) may accept it: never for / and $HOME. */
  overridable: boolean;
}

const overridableFolders = ["Documents", "Desktop", "Downloads"];

const trimSlashes = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);

/** `workspace` must be absolute and normalized; `home` is the user's home directory (HOME). */
export function broadWorkspace(workspace: string, home: string | undefined): BroadWorkspace | undefined {
  const path = trimSlashes(workspace);
  if (path === "/") return { what: "the filesystem root", overridable: false };
  if (!home || home === "/") return undefined;
  const homeDir = trimSlashes(home);
  if (path === homeDir) return { what: "your home directory", overridable: false };
  for (const folder of overridableFolders) {
    if (path === `${homeDir}/${folder}`) return { what: `~/${folder}`, overridable: true };
  }
  return undefined;
}

/** The `override` part of WORKSPACE_TOO_BROAD's message. */
export function broadWorkspaceOverride(found: BroadWorkspace): string {
  return found.overridable
    ? "; to use it anyway start the stack with aide up --allow-home-workspace (AIDE_ALLOW_HOME_WORKSPACE=1 for the orchestrator)"
    : "; this one is never accepted (no setting overrides it)";
}

/**
 * The one check: WORKSPACE_TOO_BROAD for a folder the rule refuses — with `allowHomeWorkspace`
 * (aide up --allow-home-workspace) only `/` and `$HOME` — else undefined.
 */
export function workspaceTooBroadError(workspace: string, home: string | undefined, allowHomeWorkspace = false): AideError | undefined {
  const found = broadWorkspace(workspace, home);
  if (!found || (found.overridable && allowHomeWorkspace)) return undefined;
  return aideError("WORKSPACE_TOO_BROAD", { workspace, what: found.what, override: broadWorkspaceOverride(found) });
}

/**
 * `workspaceTooBroadError` for a workspace met on disk: the requested path and its real path, each
 * against the home as given and as resolved (a home or a Documents folder behind a symlink is
 * still that folder). `realHome` is the home's real path when known.
 */
export function workspaceOnDiskTooBroadError(requested: string, real: string, rule: { home: string | undefined; realHome?: string | undefined; allowHomeWorkspace: boolean }): AideError | undefined {
  const homes = [...new Set([rule.home, rule.realHome])];
  for (const path of [requested, real]) {
    for (const home of homes) {
      const error = workspaceTooBroadError(path, home, rule.allowHomeWorkspace);
      if (error) return error;
    }
  }
  return undefined;
}
