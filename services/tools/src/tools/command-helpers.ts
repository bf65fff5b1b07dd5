import type { ToolContext } from "../framework/tool-types.js";
import { parseCommandLine } from "../sandbox/command-line.js";

export const defaultCommandTimeoutMs = 120_000;
export const maxCommandTimeoutMs = 900_000;

export type PreparedCommand =
  | { ok: true; argv: string[]; shell: boolean; cwd: string; cwdRelative: string; timeoutMs: number }
  | { ok: false; error: string; code: "VALIDATION" | "FILE_NOT_FOUND" | "NOT_A_DIRECTORY" };

/**
 * Parses the command line, resolves `cwd` through the jail, bounds the timeout. A command line
 * that does not parse is a malformed call (`VALIDATION`); a `cwd` that is missing or a file is a
 * well-formed call naming the wrong place (`FILE_NOT_FOUND`, `NOT_A_DIRECTORY`), as list_dir's.
 */
export async function prepareCommand(context: ToolContext, command: string, cwd: string | undefined, timeoutMs: number | undefined): Promise<PreparedCommand> {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return { ...parsed, code: "VALIDATION" };
  const directory = await context.workspace.resolve(cwd ?? ".");
  if (directory.stats === null) return { ok: false, error: `cwd ${directory.relative} is not a directory in the workspace: nothing is there.`, code: "FILE_NOT_FOUND" };
  if (!directory.stats.isDirectory()) return { ok: false, error: `cwd ${directory.relative} is a file, not a directory; give the folder that holds it.`, code: "NOT_A_DIRECTORY" };
  // The model's own limit, bounded by the caller's budget for the whole call.
  const requested = timeoutMs ?? defaultCommandTimeoutMs;
  const timeout = Math.min(Math.max(1, requested), context.timeoutMs ?? maxCommandTimeoutMs, maxCommandTimeoutMs);
  return { ok: true, argv: parsed.argv, shell: parsed.shell, cwd: directory.absolute, cwdRelative: directory.relative, timeoutMs: timeout };
}
