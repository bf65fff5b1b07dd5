import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, rename, rm, rmdir, symlink, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { aideError } from "@aide/contracts";
import type { TreeChange } from "./compare-trees.js";
import type { ObjectStore } from "./object-store.js";

const depth = (path: string) => path.split("/").length;

/** Creates the folders above `path`, refusing to pass through anything that is not a real folder. */
async function ensureParents(workspace: string, path: string, verified: Set<string>): Promise<void> {
  const segments = path.split("/").slice(0, -1);
  let current = workspace;
  for (const segment of segments) {
    current = join(current, segment);
    if (verified.has(current)) continue;
    verified.add(current);
    const stats = await lstat(current).catch(() => undefined);
    if (stats === undefined) await mkdir(current);
    else if (!stats.isDirectory()) throw aideError("CHECKPOINT_FAILED", { detail: `cannot restore ${path}: ${current} is not a folder` });
  }
}

function permissions(existingMode: number | undefined, executable: boolean): number {
  if (existingMode === undefined) return executable ? 0o755 : 0o644;
  const bits = existingMode & 0o777;
  return executable ? bits | ((bits & 0o444) >> 2) : bits & ~0o111;
}

/**
 * Makes the working tree match the checkpoint for the changed paths (changes computed with the
 * checkpoint as `before` and the working tree as `after`): removes files created since, then
 * folders that removal emptied, then writes files back byte-exact (temp file + rename, so a
 * symlink in the way is replaced, never followed) with their mode.
 */
export async function applyRestore(workspace: string, store: ObjectStore, changes: readonly TreeChange[], tempDirectory: string): Promise<void> {
  await mkdir(tempDirectory, { recursive: true });
  const removals = changes.filter((c) => c.status === "added").map((c) => c.path).sort((a, b) => depth(b) - depth(a));
  const emptied = new Set<string>();
  for (const path of removals) {
    await unlink(join(workspace, path)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    for (let parent = dirname(path); parent !== "." && parent !== ""; parent = dirname(parent)) emptied.add(parent);
  }
  for (const folder of [...emptied].sort((a, b) => depth(b) - depth(a))) {
    await rmdir(join(workspace, folder)).catch(() => undefined);
  }
  const writes = changes.filter((c) => c.before !== undefined).sort((a, b) => a.path.localeCompare(b.path));
  const verified = new Set<string>();
  for (const change of writes) {
    const version = change.before!;
    const target = join(workspace, change.path);
    await ensureParents(workspace, change.path, verified);
    const { content } = await store.read(version.oid);
    const existing = await lstat(target).catch(() => undefined);
    if (version.mode === "120000") {
      if (existing?.isDirectory()) throw aideError("CHECKPOINT_FAILED", { detail: `cannot restore ${change.path}: a folder is in the way` });
      if (existing) await rm(target, { force: true });
      await symlink(content, target);
      continue;
    }
    const mode = permissions(existing?.isFile() ? existing.mode : undefined, version.mode === "100755");
    await writeFileAtomically(target, content, mode, tempDirectory, change.path);
  }
}

/**
 * Writes a file by renaming a complete temp file over the target: a reader never sees half a
 * file, and a symlink at the target is replaced, not followed. The temp file lives in the shadow
 * repository (so a crash leaves nothing in the user's tree, and prune clears it); a target on
 * another filesystem falls back to a temp file beside it.
 */
async function writeFileAtomically(target: string, content: Buffer, mode: number, tempDirectory: string, path: string): Promise<void> {
  const name = `restore-${randomBytes(8).toString("hex")}`;
  let temp = join(tempDirectory, name);
  try {
    await writeFile(temp, content, { mode, flag: "wx" });
    await chmod(temp, mode);
    try {
      await rename(temp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
      await rm(temp, { force: true });
      temp = join(dirname(target), `.aide-restore-${name}`);
      await writeFile(temp, content, { mode, flag: "wx" });
      await chmod(temp, mode);
      await rename(temp, target);
    }
  } catch (error) {
    await rm(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR" || code === "ENOTEMPTY") throw aideError("CHECKPOINT_FAILED", { detail: `cannot restore ${path}: a folder is in the way` });
    throw error;
  }
}
