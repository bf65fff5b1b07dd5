import type { ToolContext } from "../framework/tool-types.js";
import { parseCommandLine } from "../sandbox/command-line.js";

export const defaultCommandTimeoutMs = 120_000;
export const maxCommandTimeoutMs = 900_000;

export type PreparedCommand = { ok: true; argv: string[]; shell: boolean; cwd: string; cwdRelative: string; timeoutMs: number } | { ok: false; error: string };

/** Parses the command line, resolves `cwd` through the jail, bounds the timeout. */
export async function prepareCommand(context: ToolContext, command: string, cwd: string | undefined, timeoutMs: number | undefined): Promise<PreparedCommand> {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return parsed;
  const directory = await context.workspace.resolve(cwd ?? ".");
  if (directory.stats === null || !directory.stats.isDirectory()) return { ok: false, error: `cwd ${directory.relative} is not a directory in the workspace.` };
  // The model's own limit, bounded by the caller's budget for the whole call.
  const requested = timeoutMs ?? defaultCommandTimeoutMs;
  const timeout = Math.min(Math.max(1, requested), context.timeoutMs ?? maxCommandTimeoutMs, maxCommandTimeoutMs);
  return { ok: true, argv: parsed.argv, shell: parsed.shell, cwd: directory.absolute, cwdRelative: directory.relative, timeoutMs: timeout };
}
