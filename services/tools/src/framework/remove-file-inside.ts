import { lstat, realpath, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { aideError } from "@aide/contracts";
import { isInside } from "../jail/resolve-jailed-path.js";

/**
 * Removes one file the jail resolved (apply_patch's delete and the old side of its rename): the
 * parent's real path is checked to be inside the workspace, and unlink removes a link itself,
 * never what it points to. The one place a tool deletes a file, so the jail's descriptor-based
 * file layer can take it over in one spot.
 */
export async function removeFileInside(root: string, absolutePath: string): Promise<void> {
  const realParent = await realpath(dirname(absolutePath));
  if (!isInside(root, realParent)) throw aideError("PATH_OUTSIDE_WORKSPACE", { path: JSON.stringify(absolutePath) });
  const target = join(realParent, basename(absolutePath));
  const stats = await lstat(target);
  if (!stats.isFile() && !stats.isSymbolicLink()) throw aideError("PATH_INVALID", { path: JSON.stringify(absolutePath), detail: "not a regular file" });
  await unlink(target);
}
