/** Loose refs of the shadow repository. */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * Loose refs under the shadow repository, written as git does (one file holding the id), each
 * update a temp file renamed into place so a killed process leaves the old value or the new.
 */
export class RefStore {
  constructor(private readonly gitdir: string) {}

  async read(ref: string): Promise<string | undefined> {
    try {
      const value = (await readFile(join(this.gitdir, ref), "utf8")).trim();
      return /^[0-9a-f]{40}$/.test(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async write(ref: string, oid: string): Promise<void> {
    const path = join(this.gitdir, ref);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    await writeFile(temp, `${oid}\n`);
    await rename(temp, path);
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
