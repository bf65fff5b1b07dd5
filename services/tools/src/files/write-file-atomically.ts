import { lstat, mkdir, open, realpath, rename, rm, stat } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, relative } from "node:path";
import { aideError } from "@aide/contracts";
import { isInside } from "../jail/resolve-jailed-path.js";

/**
 * Writes through a temporary sibling created with O_EXCL (which never follows a symlink) and a
 * rename (which replaces a link rather than writing through it). The parent's real path is checked
 * again just before the rename, so a symlink swapped in after the jail ran cannot redirect it.
 */
export async function writeFileAtomically(root: string, absolutePath: string, data: Buffer): Promise<void> {
  const parent = dirname(absolutePath);
  await makeDirectoriesInside(root, parent);
  const realParent = await realpath(parent);
  if (!isInside(root, realParent)) throw aideError("PATH_OUTSIDE_WORKSPACE", { path: JSON.stringify(absolutePath) });
  const mode = await stat(absolutePath).then((s) => s.mode & 0o7777, () => 0o644);
  const temporary = join(realParent, `.${basename(absolutePath)}.aide-${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temporary, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
  try {
    if (!isInside(root, await realpath(parent))) throw aideError("PATH_OUTSIDE_WORKSPACE", { path: JSON.stringify(absolutePath) });
    await rename(temporary, join(realParent, basename(absolutePath)));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** mkdir -p that never follows a symlink: each missing component is created under a checked real directory. */
async function makeDirectoriesInside(root: string, directory: string): Promise<void> {
  const rest = relative(root, directory);
  if (rest.startsWith("..")) throw aideError("PATH_OUTSIDE_WORKSPACE", { path: JSON.stringify(directory) });
  let current = root;
  for (const component of rest.split("/").filter((c) => c !== "")) {
    const next = join(current, component);
    const stats = await lstat(next).catch(() => null);
    if (stats === null) {
      await mkdir(next);
    } else if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw aideError("PATH_INVALID", { path: JSON.stringify(next), detail: "a component changed into a link or file while writing" });
    }
    current = next;
  }
}
