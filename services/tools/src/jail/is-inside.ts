import { sep } from "node:path";

/** `candidate` is `root` or lies below it (both absolute and normalized). */
export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}
