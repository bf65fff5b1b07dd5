import { dirname } from "node:path";
import type { ToolContext } from "../framework/tool-types.js";
import { gitConfigEnvironment, neutralGitSettings, programSettingsFor } from "./git-program-settings.js";
import { toolConfigOverrides } from "./tool-config-overrides.js";
import { configurationKey, createConfigurationCache, hasIncludes, type ConfigurationCache } from "./git-config-cache.js";
import type { Sandbox } from "../sandbox/sandbox.js";

/** One configuration cache per sandbox (each tools service has one). */
const caches = new WeakMap<Sandbox, ConfigurationCache>();

async function currentKey(context: CommandContext, cwd: string): Promise<string | undefined> {
  const root = context.workspace.root;
  return configurationKey(await context.sandbox.gitDirectories(root), root, cwd);
}

/**
 * The config names of the repository at the command's cwd and of every repository nested below it
 * (up to 4 levels, at most 50, dependency folders skipped), so a `cd sub && git diff` into a
 * nested repository finds its drivers blanked too. Errors are dropped; names are one per line.
 */
const listAllConfigNames = [
  "git config --includes --name-only --list 2>/dev/null",
  'find . -mindepth 2 -maxdepth 4 \\( -name node_modules -o -name .aide -o -name target -o -name .venv \\) -prune -o -name .git -print 2>/dev/null | head -n 50 | while IFS= read -r repo; do git -C "${repo%/.git}" config --includes --name-only --list 2>/dev/null; done',
  "exit 0",
].join("\n");

/** What the neutralization needs of a tool call (the benchmark passes only these). */
export type CommandContext = Pick<ToolContext, "sandbox" | "signal"> & { session?: string; workspace: { root: string } };

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
export async function commandGitEnvironment(context: CommandContext, cwd: string): Promise<CommandGitEnvironment> {
  const root = context.workspace.root;
  const fixed = { ...toolConfigOverrides(), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: dirname(root), GIT_PAGER: "cat" };
  const neutral = neutralGitSettings();
  const environment = (names: readonly string[]): CommandGitEnvironment => {
    const drivers = programSettingsFor(names);
    return { ok: true, env: { ...fixed, ...gitConfigEnvironment([...neutral, ...drivers]) }, drivers: drivers.length };
  };
  // The listing is reused while nothing it reads has changed (configurationKey); the key is taken
  // before and again after a listing, and a listing is kept only if both agree.
  const cache = caches.get(context.sandbox) ?? createConfigurationCache();
  caches.set(context.sandbox, cache);
  const before = await currentKey(context, cwd);
  const cached = before === undefined ? undefined : cache.get(root, cwd, before);
  if (cached !== undefined) return environment(cached);
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
    return {
      ok: false,
      error: "Refused: the repository's git configuration could not be read in full, so the programs it names could not be neutralized. Trim .git/config (and its includes) and retry.",
    };
  }
  // A broken config makes git fail anyway (nothing of it can run a program); its lines are skipped.
  const names = listing.stdout.split("\n");
  if (before !== undefined && listing.exitCode === 0 && !hasIncludes(names) && (await currentKey(context, cwd)) === before) cache.set(root, cwd, before, names);
  return environment(names);
}
