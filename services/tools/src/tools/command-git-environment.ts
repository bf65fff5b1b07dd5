import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ToolContext } from "../framework/tool-types.js";
import { gitConfigEnvironment, neutralGitSettings, programSettingsFor } from "./git-program-settings.js";

export type CommandGitEnvironment = { ok: true; env: Record<string, string>; drivers: number } | { ok: false; error: string };

/** Whether `cwd` or a folder above it, up to the workspace root, holds a `.git`. */
function insideRepository(root: string, cwd: string): boolean {
  for (let folder = cwd; ; folder = dirname(folder)) {
    if (existsSync(join(folder, ".git"))) return true;
    if (folder === root || dirname(folder) === folder || !folder.startsWith(root)) return false;
  }
}

/**
 * The environment every run_command/process_start gets so that any git it runs (a bare `git
 * status` or one deep in a pipeline or script) uses only the configuration the person can see:
 * no global or system config, no discovery of a repository above the workspace, and command-scope
 * overrides (which win over every config file) for each setting that can name a program. The
 * repository's config is listed first, inside the sandbox, so its filter/diff/merge drivers,
 * aliases and url-scoped helpers are blanked by name. Applied to every command, not only
 * auto-approved ones: a person approving `git status` approves git, not the repository's fsmonitor.
 */
export async function commandGitEnvironment(context: ToolContext, cwd: string): Promise<CommandGitEnvironment> {
  const root = context.workspace.root;
  const fixed = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: dirname(root), GIT_PAGER: "cat" };
  const neutral = neutralGitSettings();
  if (!insideRepository(root, cwd)) return { ok: true, env: { ...fixed, ...gitConfigEnvironment(neutral) }, drivers: 0 };
  const listing = await context.sandbox.run({
    argv: ["git", "config", "--includes", "--name-only", "--list"],
    workspace: root,
    cwd,
    network: false,
    timeoutMs: 15_000,
    signal: context.signal,
    maxOutputBytes: 2_000_000,
    env: { ...fixed, ...gitConfigEnvironment(neutral) },
  });
  if (listing.truncated || listing.timedOut) {
    return { ok: false, error: "Refused: the repository's git configuration could not be read in full, so the programs it names could not be neutralized. Trim .git/config (and its includes) and retry." };
  }
  // A broken config makes every git command fail anyway; nothing of it can run a program then.
  const names = listing.exitCode === 0 ? listing.stdout.split("\n") : [];
  const drivers = programSettingsFor(names);
  return { ok: true, env: { ...fixed, ...gitConfigEnvironment([...neutral, ...drivers]) }, drivers: drivers.length };
}
