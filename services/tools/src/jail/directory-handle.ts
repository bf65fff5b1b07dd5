import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, type Dirent, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/**
 * `/proc/self/fd/<fd>/<name>`: the kernel resolves the descriptor to the open directory itself
 * (not by its path), then `name` inside it, which is what openat(2) does; Node has no openat.
 */
export function beneath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** O_NONBLOCK: a FIFO swapped in after the check cannot hang the open. */
const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export type ChildDirectory =
  | { kind: "directory"; handle: DirectoryHandle }
  | { kind: "symlink" }
  | { kind: "missing" }
  | { kind: "not-directory" }
  /** It was a symlink a moment ago and is a directory again: look once more. */
  | { kind: "changed" };

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * An open directory inside the workspace and its workspace-relative path. Every name given to a
 * method is one path component, looked up in this directory and never followed when it is a
 * symlink; whoever opened a handle closes it.
 */
export class DirectoryHandle {
  private closed = false;

  constructor(
    readonly fd: number,
    /** Workspace-relative, forward slashes, "." for the root. */
    readonly relative: string,
  ) {}

  /** Opens a directory by absolute path (only the workspace root, which is a real path). */
  static openPath(path: string, relative: string): DirectoryHandle {
    return new DirectoryHandle(openSync(path, constants.O_RDONLY | constants.O_DIRECTORY), relative);
  }

  childRelative(name: string): string {
    return this.relative === "." ? name : `${this.relative}/${name}`;
  }

  openDirectory(name: string): ChildDirectory {
    try {
      return { kind: "directory", handle: new DirectoryHandle(openSync(beneath(this.fd, name), directoryFlags), this.childRelative(name)) };
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") return { kind: "missing" };
      if (code === "ELOOP" || code === "ENOTDIR") {
        // O_NOFOLLOW|O_DIRECTORY answers ENOTDIR for a symlink as for a file: look without following.
        const stats = this.lstat(name);
        if (stats === null) return { kind: "missing" };
        return stats.isSymbolicLink() ? { kind: "symlink" } : stats.isDirectory() ? { kind: "changed" } : { kind: "not-directory" };
      }
      throw error;
    }
  }

  /** lstat of one entry, null when it does not exist. */
  lstat(name: string): Stats | null {
    try {
      return lstatSync(beneath(this.fd, name));
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
  }

  stat(): Stats {
    return fstatSync(this.fd);
  }

  /** The target of a symlink entry, or null when the entry is no longer a symlink. */
  readlink(name: string): string | null {
    try {
      return readlinkSync(beneath(this.fd, name));
    } catch (error) {
      const code = errorCode(error);
      if (code === "EINVAL" || code === "ENOENT") return null;
      throw error;
    }
  }

  /** Creates a subdirectory; an existing entry of that name is left as it is (the caller looks again). */
  makeDirectory(name: string): void {
    try {
      mkdirSync(beneath(this.fd, name), 0o755);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
  }

  entries(): Dirent[] {
    return readdirSync(beneath(this.fd), { withFileTypes: true });
  }

  /** Opens an entry for reading; ELOOP when it is (now) a symlink. */
  openForReading(name: string): Promise<FileHandle> {
    return open(beneath(this.fd, name), readFlags);
  }

  /** A regular file's bytes, never through a symlink; undefined when it is not one or cannot be read. */
  async readRegularFile(name: string): Promise<Buffer | undefined> {
    try {
      const handle = await this.openForReading(name);
      try {
        return (await handle.stat()).isFile() ? await handle.readFile() : undefined;
      } finally {
        await handle.close();
      }
    } catch {
      return undefined;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
