/** The stat cache's file format. */
import type { DirNode, FileNode, StatCache, TreeNode } from "./stat-cache-tree.js";

/**
 * The stat cache on disk: one line per entry, depth first, tab-separated, so ten thousand files
 * serialize and parse in milliseconds (JSON of nested objects took ten times longer).
 *
 *   aide-stat-cache 2 <commit|->
 *   d <name> <tree id|->      a folder; its entries follow until "u"
 *   f <name> <mode> <size> <mtimeMs> <ctimeMs> <ino> <blob id> <racy 0|1>
 *   s <name> <reason>
 *   u
 *
 * Names (and reasons) holding a tab, newline, backslash or a leading quote are written as JSON
 * strings. A damaged file parses as "no cache": everything is hashed again, nothing is wrong.
 */
const header = "aide-stat-cache 2";
// A lone surrogate (a name that is not UTF-8, scan/raw-names.ts) must be JSON-escaped to survive UTF-8.
const needsQuoting = /[\t\n\r\\\uD800-\uDFFF]|^"/;
const oidPattern = /^[0-9a-f]{40}$/;
const modes = new Set(["100644", "100755", "120000"]);

const encodeText = (text: string) => (needsQuoting.test(text) ? JSON.stringify(text) : text);
const decodeText = (field: string) => (field.startsWith('"') ? (JSON.parse(field) as string) : field);

export function serializeStatCache(cache: StatCache): string {
  const lines: string[] = [`${header}\t${cache.commit ?? "-"}`];
  const walk = (dir: DirNode) => {
    for (const [name, node] of dir.children) {
      if (node.kind === "file") {
        lines.push(`f\t${encodeText(name)}\t${node.mode}\t${node.size}\t${node.mtimeMs}\t${node.ctimeMs}\t${node.ino}\t${node.oid}\t${node.racy ? 1 : 0}`);
      } else if (node.kind === "skipped") lines.push(`s\t${encodeText(name)}\t${encodeText(node.reason)}`);
      else {
        lines.push(`d\t${encodeText(name)}\t${node.oid ?? "-"}`);
        walk(node);
        lines.push("u");
      }
    }
  };
  lines.push(`d\t\t${cache.root.oid ?? "-"}`);
  walk(cache.root);
  lines.push("u", "");
  return lines.join("\n");
}

function invalid(): never {
  throw new Error("damaged stat cache");
}

function parseFile(fields: string[]): FileNode {
  const [, , mode, size, mtimeMs, ctimeMs, ino, oid, racy] = fields;
  if (!modes.has(mode) || !oidPattern.test(oid)) invalid();
  const numbers = [size, mtimeMs, ctimeMs, ino].map(Number);
  if (numbers.some((n) => !Number.isFinite(n))) invalid();
  const node: FileNode = { kind: "file", mode: mode as FileNode["mode"], size: numbers[0], mtimeMs: numbers[1], ctimeMs: numbers[2], ino: numbers[3], oid };
  if (racy === "1") node.racy = true;
  return node;
}

/** Parses the format above; throws on anything unexpected (the caller treats that as no cache). */
export function parseStatCache(text: string): StatCache {
  const lines = text.split("\n");
  const [head, commit] = (lines[0] ?? "").split("\t");
  if (head !== header || (commit !== "-" && !oidPattern.test(commit ?? ""))) invalid();
  const stack: DirNode[] = [];
  let root: DirNode | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line === "") continue;
    const fields = line.split("\t");
    const parent = stack[stack.length - 1];
    switch (fields[0]) {
      case "d": {
        const oid = fields[2];
        if (oid !== "-" && !oidPattern.test(oid ?? "")) invalid();
        const dir: DirNode = { kind: "dir", children: new Map(), ...(oid !== "-" ? { oid } : {}) };
        if (parent) parent.children.set(decodeText(fields[1]), dir);
        else if (root === undefined) root = dir;
        else invalid();
        stack.push(dir);
        break;
      }
      case "f":
        if (!parent || fields.length !== 9) invalid();
        parent.children.set(decodeText(fields[1]), parseFile(fields));
        break;
      case "s":
        if (!parent) invalid();
        parent.children.set(decodeText(fields[1]), { kind: "skipped", reason: decodeText(fields[2] ?? "") } as TreeNode);
        break;
      case "u":
        if (!stack.pop()) invalid();
        break;
      default:
        invalid();
    }
  }
  if (root === undefined || stack.length !== 0) invalid();
  return { ...(commit !== "-" ? { commit } : {}), root };
}
