import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/**
 * Opens a path the jail already resolved for reading, refusing a symlink swapped in since
 * (O_NOFOLLOW on the final component), so the bytes read are the ones the jail approved.
 */
export function openNoFollow(path: string): Promise<FileHandle> {
  return open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
}

export async function readFileNoFollow(path: string): Promise<Buffer> {
  const handle = await openNoFollow(path);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
