/** Disk usage of a shadow repository (bytes, packs, loose objects). */
import { readdir, lstat } from "node:fs/promises";
import { join } from "node:path";

/** Allocated bytes of everything under `root` (what the disk really loses), plus counts. */
export async function diskUsage(root: string): Promise<{ bytes: number; apparent: number; files: number }> {
  let bytes = 0;
  let apparent = 0;
  let files = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const stats = await lstat(path).catch(() => undefined);
      if (!stats) continue;
      bytes += stats.blocks * 512;
      if (entry.isDirectory()) await walk(path);
      else { apparent += stats.size; files++; }
    }
  };
  await walk(root);
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
