import type { ToolContext } from "../framework/tool-types.js";
import type { SandboxRunResult } from "../sandbox/sandbox.js";

/**
 * Settings that stop a hostile repository's own config from running programs through a read-only
 * git command: fsmonitor, hooks (post-index-change), pagers, external diff, credential helpers.
 * Per-driver filters and textconv are blanked once their names are known.
 */
function baseOverrides(root: string): string[] {
  const settings = [
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "pager.status=false",
    "pager.diff=false",
    "diff.external=",
    "core.sshCommand=false",
    "core.askPass=",
    "credential.helper=",
    "core.editor=false",
    "core.untrackedCache=false",
    "gpg.program=false",
    "protocol.allow=never",
    `safe.directory=${root}`,
  ];
  return settings.flatMap((setting) => ["-c", setting]);
}

function driverOverrides(configListing: string): string[] {
  const settings = new Set<string>();
  for (const line of configListing.split("\n")) {
    const match = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)\s/i.exec(line + " ");
    if (!match) continue;
    const section = match[1].toLowerCase();
    const name = match[2];
    const blanked =
      section === "filter"
        ? [`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`, `filter.${name}.required=false`]
        : section === "diff"
          ? [`diff.${name}.textconv=`, `diff.${name}.command=`, `diff.${name}.cachetextconv=false`]
          : [`merge.${name}.driver=`];
    for (const setting of blanked) settings.add(setting);
  }
  return [...settings].flatMap((setting) => ["-c", setting]);
}

async function runGit(context: ToolContext, args: string[], timeoutMs: number): Promise<SandboxRunResult> {
  return context.sandbox.run({
    argv: ["git", "--no-pager", "--no-optional-locks", ...args],
    workspace: context.workspace.root,
    cwd: context.workspace.root,
    network: false,
    timeoutMs,
    signal: context.signal,
    maxOutputBytes: 56_000,
  });
}

/** Runs a read-only git command on the user's repository, inside the sandbox, neutralized. */
export async function runNeutralizedGit(context: ToolContext, args: string[], timeoutMs = 30_000): Promise<SandboxRunResult> {
  const base = baseOverrides(context.workspace.root);
  const listing = await runGit(context, [...base, "config", "--includes", "--get-regexp", "^(filter|diff|merge)\\..*\\.(clean|smudge|process|textconv|command|driver)$"], timeoutMs);
  return runGit(context, [...base, ...driverOverrides(listing.stdout), ...args], timeoutMs);
}
