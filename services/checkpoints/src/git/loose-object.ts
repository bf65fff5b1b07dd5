/** One object as a loose file, as git stores it. */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";
import { hashObject, type GitObjectType } from "./git-objects.js";

export function looseObjectPath(gitdir: string, oid: string): string {
  return join(gitdir, "objects", oid.slice(0, 2), oid.slice(2));
}

/**
 * Stores one small object as a loose file (temp + rename), as git does: the commit object of a
 * checkpoint whose tree is unchanged then costs one file instead of a pack and its index.
 */
export async function writeLooseObject(gitdir: string, type: GitObjectType, content: Buffer): Promise<string> {
  const oid = hashObject(type, content);
  const path = looseObjectPath(gitdir, oid);
  if (existsSync(path)) return oid;
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const data = deflateSync(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]), { level: 1 });
  // Synchronous: a commit object is a few hundred bytes, and the thread pool cost a hop and an
  // event-loop turn per call. The fan-out folder is made only when it is missing.
  try {
    try {
      writeFileSync(temp, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(join(gitdir, "objects", oid.slice(0, 2)), { recursive: true });
      writeFileSync(temp, data);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return oid;
}

export function readLooseObject(gitdir: string, oid: string): { type: string; content: Buffer } | undefined {
  let raw: Buffer;
  try {
    raw = inflateSync(readFileSync(looseObjectPath(gitdir, oid)));
  } catch {
    return undefined;
  }
  const nul = raw.indexOf(0);
  const [type, size] = raw.toString("latin1", 0, nul).split(" ");
  const content = raw.subarray(nul + 1);
  if (Number(size) !== content.length) return undefined;
  return { type, content };
}
