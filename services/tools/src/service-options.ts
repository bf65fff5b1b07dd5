import { isAbsolute } from "node:path";

export interface ToolsServiceSettings {
  workspaceRoots: string[];
  /** Only then may commands run without bubblewrap. */
  unsafeNoSandbox: boolean;
  maxConcurrent: number;
  /** AIDE_TOOLS_SEARCH=js: use the JavaScript search even when ripgrep is present (tests, comparison). */
  forceJavascriptSearch: boolean;
}

/** Reads AIDE_WORKSPACE_ROOTS, AIDE_UNSAFE_NO_SANDBOX / --unsafe-no-sandbox, AIDE_TOOLS_MAX_CONCURRENT. */
export function readSettings(env: NodeJS.ProcessEnv, argv: readonly string[]): ToolsServiceSettings {
  const workspaceRoots = (env.AIDE_WORKSPACE_ROOTS ?? "")
    .split(":")
    .map((root) => root.trim())
    .filter((root) => root !== "" && isAbsolute(root));
  const unsafeNoSandbox = env.AIDE_UNSAFE_NO_SANDBOX === "1" || argv.includes("--unsafe-no-sandbox");
  const parsed = Number(env.AIDE_TOOLS_MAX_CONCURRENT ?? "16");
  return { workspaceRoots, unsafeNoSandbox, maxConcurrent: Number.isInteger(parsed) && parsed > 0 ? parsed : 16, forceJavascriptSearch: env.AIDE_TOOLS_SEARCH === "js" };
}
