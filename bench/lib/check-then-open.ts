/**
 * The path jail as it was before the descriptor walk (check, then open by path again), kept only so
 * bench:jail can measure the new descriptor walk against it in the same run. Not used by aide.
 */
import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, rename, rm, stat } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

async function walk(start: string, components: string[], hops: { count: number }): Promise<{ path: string; missing: boolean }> {
  let current = start;
  for (let index = 0; index < components.length; index += 1) {
    const component = components[index];
    if (component === "" || component === ".") continue;
    if (component === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, component);
    const stats = await lstatOrNull(next);
    if (stats === null) return { path: join(next, ...components.slice(index + 1)), missing: true };
    if (stats.isSymbolicLink()) {
      hops.count += 1;
      if (hops.count > 40) throw new Error("too many links");
      const target = await readlink(next);
      const resolved = await walk(isAbsolute(target) ? "/" : current, target.split("/"), hops);
      if (resolved.missing) return { path: join(resolved.path, ...components.slice(index + 1)), missing: true };
      current = resolved.path;
      continue;
    }
    if (index < components.length - 1 && !stats.isDirectory()) throw new Error("not a directory");
    current = next;
  }
  return { path: current, missing: false };
}

/** Resolve, check containment, return the absolute path (which the caller then opens by name). */
export async function checkPath(root: string, input: string): Promise<string> {
  const result = await walk(isAbsolute(input) ? "/" : root, input.split("/"), { count: 0 });
  if (!isInside(root, result.path)) throw Object.assign(new Error("outside"), { code: "PATH_OUTSIDE_WORKSPACE" });
  return result.path;
}

export async function readChecked(root: string, input: string): Promise<Buffer> {
  const handle = await open(await checkPath(root, input), constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export async function writeChecked(root: string, input: string, data: Buffer): Promise<void> {
  const absolutePath = await checkPath(root, input);
  const parent = dirname(absolutePath);
  let current = root;
  for (const component of relative(root, parent)
    .split("/")
    .filter((c) => c !== "")) {
    const next = join(current, component);
    const stats = await lstat(next).catch(() => null);
    if (stats === null) await mkdir(next);
    else if (stats.isSymbolicLink() || !stats.isDirectory()) throw Object.assign(new Error("changed"), { code: "PATH_INVALID" });
    current = next;
  }
  const realParent = await realpath(parent);
  if (!isInside(root, realParent)) throw Object.assign(new Error("outside"), { code: "PATH_OUTSIDE_WORKSPACE" });
  const mode = await stat(absolutePath).then(
    (s) => s.mode & 0o7777,
    () => 0o644,
  );
  const temporary = join(realParent, `.${basename(absolutePath)}.aide-${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temporary, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
  try {
    if (!isInside(root, await realpath(parent))) throw Object.assign(new Error("outside"), { code: "PATH_OUTSIDE_WORKSPACE" });
    await rename(temporary, join(realParent, basename(absolutePath)));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
