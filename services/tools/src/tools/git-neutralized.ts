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
  const overrides: string[] = [];
  for (const line of configListing.split("\n")) {
    const match = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)\s/i.exec(line + " ");
    if (!match) continue;
    const [, section, name] = match;
    if (section.toLowerCase() === "filter") overrides.push("-c", `filter.${name}.clean=`, "-c", `filter.${name}.smudge=`, "-c", `filter.${name}.process=`, "-c", `filter.${name}.required=false`);
    else if (section.toLowerCase() === "diff") overrides.push("-c", `diff.${name}.textconv=`, "-c", `diff.${name}.command=`, "-c", `diff.${name}.cachetextconv=false`);
    else overrides.push("-c", `merge.${name}.driver=`);
  }
  return [...new Set(overrides.join("\u0000").split("\u0000"))].filter((v) => v !== "");
}

async function runGit(context: ToolContext, args: string[], timeoutMs: number): Promise<SandboxRunResult> {
  return context.sandbox.run({
    argv: ["git", "--no-pager", "--no-optional-locks", ...args],
    workspace: context.workspace.root,
    cwd: context.workspace.root,
    network: false,
    timeoutMs,
    signal: context.signal,
    maxOutputBytes: 64_000,
  });
}

/** Runs a read-only git command on the user's repository, inside the sandbox, neutralized. */
export async function runNeutralizedGit(context: ToolContext, args: string[], timeoutMs = 30_000): Promise<SandboxRunResult> {
  const base = baseOverrides(context.workspace.root);
  const listing = await runGit(context, [...base, "config", "--includes", "--get-regexp", "^(filter|diff|merge)\\..*\\.(clean|smudge|process|textconv|command|driver)$"], timeoutMs);
  return runGit(context, [...base, ...driverOverrides(listing.stdout), ...args], timeoutMs);
}
