import { constants, renameSync, unlinkSync, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { beneath, type DirectoryHandle } from "./directory-handle.js";
import { pathInvalid } from "./path-syntax.js";
import { resolveBeneath, type WorkspaceRoot } from "./resolve-beneath.js";

export type OpenedFile =
  | { kind: "file"; relative: string; handle: FileHandle; stats: Stats }
  | { kind: "missing"; relative: string }
  | { kind: "directory"; relative: string; stats: Stats }
  | { kind: "other"; relative: string; stats: Stats };

export type OpenedDirectory = { kind: "directory"; relative: string; handle: DirectoryHandle } | { kind: "missing"; relative: string } | { kind: "not-directory"; relative: string };

/** A swap between the walk and the open of the last component: walk again, this many times at most. */
const maxAttempts = 10;

function errnoError(code: string, relative: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}, ${relative}`), { code, path: relative });
}

function isCode(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException).code ?? "");
}

/** Opens a regular file for reading through the jail; a file handle returned is the caller's to close. */
export async function openFileBeneath(root: WorkspaceRoot, input: string): Promise<OpenedFile> {
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    const found = resolveBeneath(root, input);
    try {
      if (found.stats === null) return { kind: "missing", relative: found.relative };
      if (found.name === null || found.stats.isDirectory()) return { kind: "directory", relative: found.relative, stats: found.stats };
      if (!found.stats.isFile()) return { kind: "other", relative: found.relative, stats: found.stats };
      let handle: FileHandle;
      try {
        handle = await found.directory.openForReading(found.name);
      } catch (error) {
        if (isCode(error, "ELOOP", "ENOENT", "ENXIO")) continue;
        throw error;
      }
      const stats = await handle.stat();
      if (stats.isFile()) return { kind: "file", relative: found.relative, handle, stats };
      await handle.close();
      return { kind: "other", relative: found.relative, stats };
    } finally {
      found.directory.close();
    }
  }
  throw pathInvalid(input, "the file kept changing while it was opened; try again");
}

/** Reads a whole regular file through the jail; null when there is none. */
export async function readFileBeneath(root: WorkspaceRoot, input: string): Promise<Buffer | null> {
  const opened = await openFileBeneath(root, input);
  if (opened.kind === "missing") return null;
  if (opened.kind !== "file") throw errnoError(opened.kind === "directory" ? "EISDIR" : "EINVAL", opened.relative, "not a regular file");
  try {
    return await opened.handle.readFile();
  } finally {
    await opened.handle.close();
  }
}

export function openDirectoryBeneath(root: WorkspaceRoot, input: string): OpenedDirectory {
  const found = resolveBeneath(root, input, { final: "directory" });
  if (found.name === null && !found.parentMissing) return { kind: "directory", relative: found.relative, handle: found.directory };
  found.directory.close();
  return found.stats === null ? { kind: "missing", relative: found.relative } : { kind: "not-directory", relative: found.relative };
}

/**
 * Replaces or creates a file: missing directories are made inside their verified parents, the
 * bytes go to a temporary created with O_CREAT|O_EXCL|O_NOFOLLOW in the verified parent, which is
 * then renamed onto the name in that same open directory. A symlink swapped in anywhere on the way
 * cannot redirect either step.
 */
export async function writeFileBeneath(root: WorkspaceRoot, input: string, data: Buffer): Promise<void> {
  const found = resolveBeneath(root, input, { createParents: true });
  try {
    if (found.name === null || found.stats?.isDirectory()) throw errnoError("EISDIR", found.relative, "is a directory");
    const fd = found.directory.fd;
    const mode = found.stats?.isFile() ? found.stats.mode & 0o7777 : 0o644;
    const temporary = `.${found.name.slice(0, 100)}.aide-${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(beneath(fd, temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    try {
      try {
        await handle.writeFile(data);
        await handle.chmod(mode);
      } finally {
        await handle.close();
      }
      renameSync(beneath(fd, temporary), beneath(fd, found.name));
    } catch (error) {
      // A full disk or a failed rename leaves no temporary behind.
      try {
        unlinkSync(beneath(fd, temporary));
      } catch {
        // already gone
      }
      throw error;
    }
  } finally {
    found.directory.close();
  }
}

/** Removes a file (a symlink itself, not its target) through the jail. */
export function removeFileBeneath(root: WorkspaceRoot, input: string): void {
  const found = resolveBeneath(root, input, { followFinal: false });
  try {
    if (found.stats === null || found.name === null) throw errnoError("ENOENT", found.relative, "no such file");
    if (found.stats.isDirectory()) throw errnoError("EISDIR", found.relative, "is a directory");
    unlinkSync(beneath(found.directory.fd, found.name));
  } finally {
    found.directory.close();
  }
}

/** Renames a file within the workspace; both ends resolved through the jail, the target's parents created. */
export function renameFileBeneath(root: WorkspaceRoot, from: string, to: string): void {
  const source = resolveBeneath(root, from, { followFinal: false });
  try {
    if (source.stats === null || source.name === null) throw errnoError("ENOENT", source.relative, "no such file");
    if (source.stats.isDirectory()) throw errnoError("EISDIR", source.relative, "is a directory");
    const target = resolveBeneath(root, to, { createParents: true, followFinal: false });
    try {
      if (target.name === null || target.stats?.isDirectory()) throw errnoError("EISDIR", target.relative, "is a directory");
      renameSync(beneath(source.directory.fd, source.name), beneath(target.directory.fd, target.name));
    } finally {
      target.directory.close();
    }
  } finally {
    source.directory.close();
  }
}
