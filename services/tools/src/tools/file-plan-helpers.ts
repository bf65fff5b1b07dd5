import { readFileNoFollow } from "../files/open-no-follow.js";
import type { JailedPath } from "../jail/resolve-jailed-path.js";
import type { FileChange, ToolContext } from "../framework/tool-types.js";

/** Edits load the whole file; beyond this size the model is told to use a command instead. */
export const maxEditableBytes = 8 * 1024 * 1024;

export type LoadedTarget = { ok: true; target: JailedPath; before: Buffer | null } | { ok: false; error: string; code?: string };

/** Resolves a path through the jail and reads its current bytes (null when absent). */
export async function loadTarget(context: ToolContext, path: string): Promise<LoadedTarget> {
  const target = await context.workspace.resolve(path);
  if (target.stats === null) return { ok: true, target, before: null };
  if (target.stats.isDirectory()) return { ok: false, error: `${target.relative} is a directory.` };
  if (!target.stats.isFile()) return { ok: false, error: `${target.relative} is not a regular file.` };
  if (target.stats.size > maxEditableBytes) return { ok: false, error: `${target.relative} is ${target.stats.size} bytes; files over ${maxEditableBytes} bytes are not edited by tools.` };
  return { ok: true, target, before: await readFileNoFollow(target.absolute) };
}

export function fileChange(target: JailedPath, before: Buffer | null, after: Buffer): FileChange {
  return { path: target.relative, absolutePath: target.absolute, before, after };
}

export function countLines(data: Buffer): number {
  if (data.length === 0) return 0;
  let count = 0;
  for (const byte of data) if (byte === 0x0a) count += 1;
  return data[data.length - 1] === 0x0a ? count : count + 1;
}
