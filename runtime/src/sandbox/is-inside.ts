import { relative, sep } from "node:path";

/** Whether `path` is `parent` or lies below it (both absolute; `..` segments are resolved first). */
export function isInside(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}
