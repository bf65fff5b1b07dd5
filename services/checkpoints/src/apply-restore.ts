/** Writes a restore's changes into the working tree. */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  writeSync,
  type Stats,
} from "node:fs";
import { dirname, join } from "node:path";
import { aideError } from "@aide/contracts";
import type { TreeChange } from "./scan/compare-trees.js";
import type { ObjectStore } from "./git/object-store.js";
import { fsPath } from "./git/raw-names.js";

const depth = (path: string) => path.split("/").length;
/** Files written between two turns of the event loop (the work is synchronous: each call is short). */
const filesPerYield = 200;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(fsPath(path));
  } catch {
    return undefined;
  }
}

/** Creates the folders above `path`, refusing to pass through anything that is not a real folder. */
function ensureParents(workspace: string, path: string, verified: Set<string>): void {
  const segments = path.split("/").slice(0, -1);
  let current = workspace;
  for (const segment of segments) {
    current = join(current, segment);
    if (verified.has(current)) continue;
    verified.add(current);
    const stats = lstatOrUndefined(current);
    if (stats === undefined) mkdirSync(fsPath(current));
    else if (!stats.isDirectory()) throw aideError("CHECKPOINT_FAILED", { detail: `cannot restore ${path}: ${current} is not a folder` });
  }
}

function permissions(existingMode: number | undefined, executable: boolean): number {
  if (existingMode === undefined) return executable ? 0o755 : 0o644;
  const bits = existingMode & 0o777;
  return executable ? bits | ((bits & 0o444) >> 2) : bits & ~0o111;
}

/** A file the restore wrote through its own descriptor: its stat right after the write (fstat, as git checkout takes it) and its blob id. */
export interface WrittenFile {
  stats: Stats;
  oid: string;
}

/**
 * Makes the working tree match the checkpoint for the changed paths (changes computed with the
 * checkpoint as `before` and the working tree as `after`): removes files created since, then
 * folders that removal emptied, then writes files back byte-exact with their mode: an existing
 * regular file in place (overwriteInPlace), a missing one created exclusively (createExclusive),
 * anything else by temp file + rename, so a symlink in the way is replaced, never followed. Synchronous calls: a restore
 * of a hundred files is a few hundred short syscalls, which the thread pool would only delay.
 * Returns the files written in place or created, by path, so the caller need not read them back
 * to know what they hold; the others (removals, links, temp + rename) it must look at again.
 */
export async function applyRestore(workspace: string, store: ObjectStore, changes: readonly TreeChange[], tempDirectory: string): Promise<Map<string, WrittenFile>> {
  const written = new Map<string, WrittenFile>();
  mkdirSync(tempDirectory, { recursive: true });
  const removals = changes
    .filter((c) => c.status === "added")
    .map((c) => c.path)
    .sort((a, b) => depth(b) - depth(a));
  const emptied = new Set<string>();
  for (const path of removals) {
    try {
      unlinkSync(fsPath(workspace, path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    for (let parent = dirname(path); parent !== "." && parent !== ""; parent = dirname(parent)) emptied.add(parent);
  }
  for (const folder of [...emptied].sort((a, b) => depth(b) - depth(a))) {
    try {
      rmdirSync(fsPath(workspace, folder));
    } catch {
      // not empty (something excluded or skipped lives there): it stays
    }
  }
  // compareTrees lists changes in path order: each folder's files together, parents first.
  const writes = changes.filter((c) => c.before !== undefined);
  const verified = new Set<string>();
  let count = 0;
  for (const change of writes) {
    if (++count % filesPerYield === 0) await yieldToLoop();
    const version = change.before!;
    const target = join(workspace, change.path);
    ensureParents(workspace, change.path, verified);
    const { content } = await store.read(version.oid);
    if (version.mode === "120000") {
      const existing = lstatOrUndefined(target);
      if (existing?.isDirectory()) throw aideError("CHECKPOINT_FAILED", { detail: `cannot restore ${change.path}: a folder is in the way` });
      if (existing) rmSync(fsPath(target), { force: true });
      symlinkSync(content, fsPath(target));
      continue;
    }
    const executable = version.mode === "100755";
    // What the scan saw decides the first try (each checks what it finds itself: O_EXCL, or
    // O_NOFOLLOW and fstat); when the path changed since, look at it and decide again.
    let stats = change.after === undefined ? createExclusive(target, content, permissions(undefined, executable)) : overwriteInPlace(target, content, executable);
    if (stats === undefined) {
      const existing = lstatOrUndefined(target);
      const mode = permissions(existing?.isFile() ? existing.mode : undefined, executable);
      stats = existing === undefined ? createExclusive(target, content, mode) : existing.isFile() && existing.nlink === 1 ? overwriteInPlace(target, content, executable) : undefined;
      if (stats === undefined) {
        writeFileAtomically(target, content, mode, tempDirectory, change.path);
        continue;
      }
    }
    written.set(change.path, { stats, oid: version.oid });
  }
  return written;
}

/**
 * Overwrites an existing regular file in place, as git checkout does: creating a new inode per
 * file (temp + rename) costs ten times more on a busy ext4. Only a file this process opened
 * without following a symlink, that is still a regular file with one link (a hard link would
 * carry the write outside the workspace), is written; anything else returns false and goes the
 * temp + rename way. The new bytes are written before the file is cut to length, so a reader
 * sees old or new bytes, never an empty file; a full disk leaves the old file whole; a crash in
 * between leaves it mixed, and the same restore run again puts it right (the checkpoint and, when
 * the workspace had changed, the safety checkpoint hold every version).
 */
function overwriteInPlace(target: string, content: Buffer, executable: boolean): Stats | undefined {
  let fd: number;
  try {
    fd = openSync(fsPath(target), constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.nlink !== 1) return undefined;
    const mode = permissions(stats.mode, executable);
    // Growth first: if the disk is full, the old bytes are still whole (cut back, then the temp +
    // rename way reports DISK_FULL). Rewriting the old length needs no new blocks.
    if (content.length > stats.size) {
      try {
        writeAll(fd, content, stats.size, content.length);
      } catch {
        ftruncateSync(fd, stats.size);
        return undefined;
      }
    }
    writeAll(fd, content, 0, Math.min(stats.size, content.length));
    if (content.length < stats.size) ftruncateSync(fd, content.length);
    if ((stats.mode & 0o7777) !== mode) fchmodSync(fd, mode);
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, content: Buffer, from: number, to: number): void {
  for (let at = from; at < to; ) at += writeSync(fd, content, at, to - at, at);
}

/**
 * Creates a file that is not there (O_EXCL: never through a symlink or over something that
 * appeared meanwhile, which then goes the temp + rename way). A crash while writing leaves a
 * short new file, which the same restore run again replaces.
 */
function createExclusive(target: string, content: Buffer, mode: number): Stats | undefined {
  let fd: number;
  try {
    fd = openSync(fsPath(target), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch {
    return undefined;
  }
  try {
    writeAll(fd, content, 0, content.length);
    // The umask may have taken bits the checkpoint has (the usual 022 takes none of 644 or 755).
    const stats = fstatSync(fd);
    if ((stats.mode & 0o7777) === mode) return stats;
    fchmodSync(fd, mode);
    return fstatSync(fd);
  } catch {
    // Out of space (or another failure) half-way: no half file stays; the temp + rename way reports it.
    closeSync(fd);
    fd = -1;
    rmSync(fsPath(target), { force: true });
    return undefined;
  } finally {
    if (fd !== -1) closeSync(fd);
  }
}

/**
 * Writes a file by renaming a complete temp file over the target: a reader never sees half a
 * file, and a symlink at the target is replaced, not followed. The temp file lives in the shadow
 * repository (so a crash leaves nothing in the user's tree, and prune clears it); a target on
 * another filesystem falls back to a temp file beside it.
 */
function writeFileAtomically(target: string, content: Buffer, mode: number, tempDirectory: string, path: string): void {
  const name = `restore-${randomBytes(8).toString("hex")}`;
  let temp = join(tempDirectory, name);
  const writeTemp = () => {
    writeFileSync(fsPath(temp), content, { mode, flag: "wx" });
    chmodSync(fsPath(temp), mode);
  };
  try {
    writeTemp();
    try {
      renameSync(temp, fsPath(target));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
      rmSync(fsPath(temp), { force: true });
      temp = join(dirname(target), `.aide-restore-${name}`);
      writeTemp();
      renameSync(fsPath(temp), fsPath(target));
    }
  } catch (error) {
    rmSync(fsPath(temp), { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR" || code === "ENOTEMPTY") throw aideError("CHECKPOINT_FAILED", { detail: `cannot restore ${path}: a folder is in the way` });
    throw error;
  }
}
