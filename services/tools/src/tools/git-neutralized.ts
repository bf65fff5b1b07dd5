import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ToolContext } from "../framework/tool-types.js";
import type { SandboxRunResult } from "../sandbox/sandbox.js";
import { neutralGitSettings, programSettingsFor } from "./git-program-settings.js";

/** The shared neutral settings, plus what only these read-only tools may assume (no protocol at all). */
function baseOverrides(root: string): string[] {
  const settings = [...neutralGitSettings(), "diff.external=", "protocol.allow=never", `safe.directory=${root}`];
  return settings.flatMap((setting) => ["-c", setting]);
}

function driverOverrides(configListing: string): string[] {
  const names = configListing.split("\n").map((line) => line.split(/\s/)[0]);
  return programSettingsFor(names).flatMap((setting) => ["-c", setting]);
}

async function runGit(context: ToolContext, args: string[], timeoutMs: number): Promise<SandboxRunResult> {
  return context.sandbox.run({
    argv: ["git", "--no-pager", "--no-optional-locks", ...args],
    workspace: context.workspace.root,
    cwd: context.workspace.root,
    network: false,
    timeoutMs,
    signal: context.signal,
    session: context.session,
    maxOutputBytes: 56_000,
  });
}

const notARepository = (stdout: string): SandboxRunResult => ({
  exitCode: 128,
  signal: null,
  timedOut: false,
  aborted: false,
  stdout,
  stderr: "",
  truncated: false,
  durationMs: 0,
  totalLines: 1,
});

/**
 * The repository git may read: the workspace's own `.git`, never one found by searching parent
 * folders, and never a git directory outside the workspace (a hostile `.git` file, or a
 * `core.worktree` pointing elsewhere, must not turn git_status on another repository).
 */
export function pinnedRepository(root: string): { args: string[] } | { refused: string } {
  const dotGit = join(root, ".git");
  let stat;
  try {
    stat = lstatSync(dotGit);
  } catch {
    return { refused: "not a git repository" };
  }
  let gitDir = dotGit;
  if (stat.isFile()) {
    const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
    if (!match) return { refused: "not a git repository" };
    gitDir = resolve(dirname(dotGit), match[1].trim());
  } else if (!stat.isDirectory()) {
    return { refused: "not a git repository" };
  }
  let real: string;
  try {
    real = realpathSync(gitDir);
  } catch {
    return { refused: "not a git repository" };
  }
  const inside = relative(realpathSync(root), real);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside) || inside.split(sep)[0] === "..") {
    return { refused: "the repository's git directory lies outside the workspace" };
  }
  return { args: [`--git-dir=${real}`, `--work-tree=${root}`] };
}

/** Runs a read-only git command on the user's repository, inside the sandbox, neutralized. */
export async function runNeutralizedGit(context: ToolContext, args: string[], timeoutMs = 30_000): Promise<SandboxRunResult> {
  const pinned = pinnedRepository(context.workspace.root);
  if ("refused" in pinned) return notARepository(`fatal: ${pinned.refused}`);
  const base = [...pinned.args, ...baseOverrides(context.workspace.root)];
  const listing = await runGit(context, [...base, "config", "--includes", "--get-regexp", "^(filter|diff|merge)\\..*\\.(clean|smudge|process|textconv|command|driver)$"], timeoutMs);
  return runGit(context, [...base, ...driverOverrides(listing.stdout), ...args], timeoutMs);
}
