/** Git object encoding: ids, tree entries and their order, tree and commit bodies. */
import { createHash } from "node:crypto";
import { decodeName, isRawName, nameBytes } from "./raw-names.js";

export type GitObjectType = "blob" | "tree" | "commit";
/** Modes a checkpoint tree holds: regular, executable, symlink, folder. */
export type EntryMode = "100644" | "100755" | "120000" | "40000";

/** The id of the empty tree, which git knows without storing it. */
export const emptyTreeOid = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export interface TreeEntry {
  name: string;
  mode: EntryMode;
  oid: string;
}

/** The id git gives an object: sha1 of "<type> <length>\0<content>". */
export function hashObject(type: GitObjectType, content: Uint8Array): string {
  return createHash("sha1").update(`${type} ${content.length}\0`).update(content).digest("hex");
}

const ascii = /^[\x00-\x7f]*$/;

/** Git orders tree entries by name bytes, a folder's name compared as if it ended in "/". */
export function sortTreeEntries(entries: TreeEntry[]): TreeEntry[] {
  const keyed = entries.map((entry) => ({ entry, key: entry.mode === "40000" ? `${entry.name}/` : entry.name }));
  // For ASCII names, string order is byte order; otherwise compare the UTF-8 bytes.
  if (keyed.every((k) => ascii.test(k.key))) return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((k) => k.entry);
  return keyed
    .map(({ entry, key }) => ({ entry, bytes: nameBytes(key) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ entry }) => entry);
}

/** Serializes a tree object (entries must already be sorted) into one buffer. */
export function encodeTree(entries: readonly TreeEntry[]): Buffer {
  const heads = entries.map((entry) => `${entry.mode} ${entry.name}\0`);
  // An upper bound (3 UTF-8 bytes per UTF-16 unit) instead of measuring each name.
  let bound = 0;
  for (const head of heads) bound += head.length * 3 + 20;
  const out = Buffer.allocUnsafe(bound);
  let offset = 0;
  entries.forEach((entry, i) => {
    if (isRawName(entry.name)) {
      // A name that is not UTF-8 is written as its own bytes (raw-names.ts).
      offset += out.write(`${entry.mode} `, offset, "latin1");
      offset += nameBytes(entry.name).copy(out, offset);
      out[offset++] = 0;
    } else offset += out.write(heads[i], offset, "utf8");
    offset += out.write(entry.oid, offset, "hex");
  });
  return Buffer.from(out.subarray(0, offset));
}

export interface CommitFields {
  tree: string;
  parents: string[];
  message: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

const identity = "aide checkpoints <checkpoints@aide.invalid>";

export function encodeCommit(fields: CommitFields): Buffer {
  const lines = [`tree ${fields.tree}`, ...fields.parents.map((p) => `parent ${p}`)];
  lines.push(`author ${identity} ${fields.timestamp} +0000`, `committer ${identity} ${fields.timestamp} +0000`, "", fields.message);
  return Buffer.from(lines.join("\n"), "utf8");
}

/** Parses a tree object's entries (modes as git writes them, e.g. "40000", "100644"). */
export function decodeTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let position = 0;
  while (position < content.length) {
    const space = content.indexOf(0x20, position);
    const nul = content.indexOf(0, space);
    if (space === -1 || nul === -1 || nul + 21 > content.length) throw new Error("malformed tree object");
    const mode = content.toString("latin1", position, space) as EntryMode;
    const name = decodeName(content.subarray(space + 1, nul));
    entries.push({ name, mode: mode === ("040000" as EntryMode) ? "40000" : mode, oid: content.toString("hex", nul + 1, nul + 21) });
    position = nul + 21;
  }
  return entries;
}
