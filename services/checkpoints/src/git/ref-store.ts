/** Loose refs of the shadow repository. */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readdir, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * Loose refs under the shadow repository, written as git does (one file holding the id), each
 * update a temp file renamed into place so a killed process leaves the old value or the new.
 */
export class RefStore {
  constructor(private readonly gitdir: string) {}

  /** Synchronous (open, fstat, read, close of a 41-byte file): through the thread pool each was a hop and a turn. */
  async read(ref: string): Promise<string | undefined> {
    try {
      const value = readFileSync(join(this.gitdir, ref), "utf8").trim();
      return /^[0-9a-f]{40}$/.test(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Synchronous calls: three short syscalls on the path of every commit and restore, which the
   * thread pool only delayed (an event-loop turn each; several milliseconds on a busy machine).
   */
  async write(ref: string, oid: string): Promise<void> {
    const path = join(this.gitdir, ref);
    const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      try {
        writeFileSync(temp, `${oid}\n`);
      } catch (error) {
        // The ref's folder is made on its first write only (a mkdir of an existing folder was two syscalls per write).
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(temp, `${oid}\n`);
      }
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }

  async delete(ref: string): Promise<void> {
    await rm(join(this.gitdir, ref), { force: true });
    // Drop folders the deletion emptied, up to refs/aide.
    let folder = dirname(join(this.gitdir, ref));
    const stop = join(this.gitdir, "refs", "aide");
    while (folder.startsWith(stop) && folder !== stop) {
      try {
        await rmdir(folder);
      } catch {
        break;
      }
      folder = dirname(folder);
    }
  }

  /** Every ref below `prefix` (e.g. "refs/aide/runs/s1"), with its id. */
  async list(prefix: string): Promise<{ ref: string; oid: string }[]> {
    const out: { ref: string; oid: string }[] = [];
    const walk = async (ref: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(join(this.gitdir, ref), { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const child = `${ref}/${entry.name}`;
        if (entry.isDirectory()) await walk(child);
        else if (entry.isFile() && !entry.name.includes(".tmp-")) {
          const oid = await this.read(child);
          if (oid) out.push({ ref: child, oid });
        }
      }
    };
    await walk(prefix);
    return out;
  }
}
