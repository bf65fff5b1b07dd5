import { dirname } from "node:path";
import type { ToolContext } from "../framework/tool-types.js";
import { gitConfigEnvironment, neutralGitSettings, programSettingsFor } from "./git-program-settings.js";
import { toolConfigOverrides } from "./tool-config-overrides.js";

/**
 * The config names of the repository at the command's cwd and of every repository nested below it
 * (up to 4 levels, at most 50, dependency folders skipped), so a `cd sub && git diff` into a
 * nested repository finds its drivers blanked too. Errors are dropped; names are one per line.
 */
const listAllConfigNames = [
  "git config --includes --name-only --list 2>/dev/null",
  "find . -mindepth 2 -maxdepth 4 \\( -name node_modules -o -name .aide -o -name target -o -name .venv \\) -prune -o -name .git -print 2>/dev/null | head -n 50 | while IFS= read -r repo; do git -C \"${repo%/.git}\" config --includes --name-only --list 2>/dev/null; done",
  "exit 0",
].join("\n");

export type CommandGitEnvironment = { ok: true; env: Record<string, string>; drivers: number } | { ok: false; error: string };

/**
 * The environment every run_command/process_start gets so that any git it runs (a bare `git
 * status` or one deep in a pipeline or script) uses only the configuration the person can see:
 * no global or system config, no discovery of a repository above the workspace, and command-scope
 * overrides (which win over every config file) for each setting that can name a program. The
 * repository's config (and that of repositories nested below the cwd) is listed first, inside the
 * sandbox, so its filter/diff/merge drivers, aliases and url-scoped helpers are blanked by name.
 * The other tools' overrides (`toolConfigOverrides`: cargo wrappers, yarn-path) ride along.
 * Applied to every command, not only auto-approved ones: a person approving `git status` approves git, not the repository's fsmonitor.
 */
export async function commandGitEnvironment(context: ToolContext, cwd: string): Promise<CommandGitEnvironment> {
  const root = context.workspace.root;
  const fixed = { ...toolConfigOverrides(), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: dirname(root), GIT_PAGER: "cat" };
  const neutral = neutralGitSettings();
  const listing = await context.sandbox.run({
    argv: ["sh", "-c", listAllConfigNames],
    workspace: root,
    cwd,
    network: false,
    timeoutMs: 15_000,
    signal: context.signal,
    session: context.session,
    maxOutputBytes: 2_000_000,
    env: { ...fixed, ...gitConfigEnvironment(neutral) },
  });
  if (listing.truncated || listing.timedOut) {
    return { ok: false, error: "Refused: the repository's git configuration could not be read in full, so the programs it names could not be neutralized. Trim .git/config (and its includes) and retry." };
  }
  // A broken config makes git fail anyway (nothing of it can run a program); its lines are skipped.
  const names = listing.stdout.split("\n");
  const drivers = programSettingsFor(names);
  return { ok: true, env: { ...fixed, ...gitConfigEnvironment([...neutral, ...drivers]) }, drivers: drivers.length };
}
