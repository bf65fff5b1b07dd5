/** The home-folder rule's settings of a service that opens workspaces (tools, checkpoints). */
import { realpathSync } from "node:fs";

export interface HomeWorkspaceRule {
  /** HOME: `/`, it and its Documents, Desktop and Downloads folders are refused as workspaces. */
  home: string | undefined;
  /** HOME's real path, when it resolves (a home behind a symlink). */
  realHome: string | undefined;
  /** AIDE_ALLOW_HOME_WORKSPACE=1 (aide up --allow-home-workspace): accept ~/Documents, ~/Desktop, ~/Downloads. */
  allowHomeWorkspace: boolean;
}

/** Read once at start; apply with `workspaceOnDiskTooBroadError` from contracts. */
export function homeWorkspaceRuleFromEnv(env: NodeJS.ProcessEnv = process.env): HomeWorkspaceRule {
  const home = env.HOME || undefined;
  let realHome: string | undefined;
  try {
    realHome = home ? realpathSync(home) : undefined;
  } catch {
    realHome = undefined;
  }
  return { home, realHome, allowHomeWorkspace: env.AIDE_ALLOW_HOME_WORKSPACE === "1" };
}
