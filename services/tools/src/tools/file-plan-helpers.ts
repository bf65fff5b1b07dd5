import type { FileChange, ToolContext } from "../framework/tool-types.js";

/** Edits load the whole file; beyond this size the model is told to use a command instead. */
export const maxEditableBytes = 8 * 1024 * 1024;

/** The file an edit applies to: its real workspace-relative path. */
export interface EditTarget {
  relative: string;
}

export type LoadedTarget = { ok: true; target: EditTarget; before: Buffer | null } | { ok: false; error: string; code?: string };

/** Opens a path through the jail and reads its current bytes from that descriptor (null when absent). */
export async function loadTarget(context: ToolContext, path: string): Promise<LoadedTarget> {
  const opened = await context.workspace.openFile(path);
  const target = { relative: opened.relative };
  if (opened.kind === "missing") return { ok: true, target, before: null };
  if (opened.kind === "directory") return { ok: false, error: `${target.relative} is a directory.` };
  if (opened.kind === "other") return { ok: false, error: `${target.relative} is not a regular file.` };
  try {
    if (opened.stats.size > maxEditableBytes) return { ok: false, error: `${target.relative} is ${opened.stats.size} bytes; files over ${maxEditableBytes} bytes are not edited by tools.` };
    return { ok: true, target, before: await opened.handle.readFile() };
  } finally {
    await opened.handle.close();
  }
}

export function fileChange(target: EditTarget, before: Buffer | null, after: Buffer): FileChange {
  return { path: target.relative, before, after };
}

export function countLines(data: Buffer): number {
  if (data.length === 0) return 0;
  let count = 0;
  for (const byte of data) if (byte === 0x0a) count += 1;
  return data[data.length - 1] === 0x0a ? count : count + 1;
}
