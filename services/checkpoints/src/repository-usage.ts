/** Disk usage of a shadow repository (bytes, packs, loose objects). */
import { lstatSync, readdirSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Allocated bytes of everything under `root` (what the disk really loses), plus counts. A shadow
 * repository holds few files (packs, one loose commit per checkpoint since the last prune, refs),
 * so the walk is synchronous: every prune walks it twice, and an awaited readdir or lstat per entry
 * cost a thread-pool hop and an event-loop turn each, on the loop other sessions' commits share.
 */
export async function diskUsage(root: string): Promise<{ bytes: number; apparent: number; files: number }> {
  let bytes = 0;
  let apparent = 0;
  let files = 0;
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (!stats) continue;
      bytes += stats.blocks * 512;
      if (entry.isDirectory()) walk(path);
      else {
        apparent += stats.size;
        files++;
      }
    }
  };
  walk(root);
  return { bytes, apparent, files };
}

export async function countLooseObjects(gitdir: string): Promise<number> {
  let count = 0;
  const objects = join(gitdir, "objects");
  for (const entry of await readdir(objects).catch(() => [] as string[])) {
    if (/^[0-9a-f]{2}$/.test(entry)) count += (await readdir(join(objects, entry)).catch(() => [])).length;
  }
  return count;
}
