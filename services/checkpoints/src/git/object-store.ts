/** Reads git objects from packs and loose files. */
import { closeSync, openSync, readSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import git from "isomorphic-git";
import * as fs from "node:fs";
import { aideError } from "@aide/contracts";
import { applyDelta } from "./delta.js";
import { decodeTree, type GitObjectType, type TreeEntry } from "./git-objects.js";
import { looseObjectPath, readLooseObject } from "./loose-object.js";

interface PackIndex {
  name: string;
  /** oid → offset in the pack. */
  offsets: Map<string, number>;
}

export interface StoredObject {
  type: GitObjectType | "tag";
  content: Buffer;
}

const maxOpenPacks = 8;
/** Tree entries kept decoded (about 15 MB): ten snapshots' worth of changed folders of a 10,000-file workspace. */
const maxCachedTreeEntries = 100_000;
const typeNames: Record<number, StoredObject["type"]> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const offsetDelta = 6;
const referenceDelta = 7;
/** Delta chains longer than this are refused as malformed (git writes at most 50; prune writes 10). */
const maxDeltaDepth = 64;
/** Bases of deltas kept inflated (bytes), so a chain read object by object is not rebuilt from its root each time. */
const maxCachedBaseBytes = 32 * 1024 * 1024;

function parseIndex(name: string, data: Buffer): PackIndex {
  const offsets = new Map<string, number>();
  if (data.readUInt32BE(0) !== 0xff744f63 || data.readUInt32BE(4) !== 2) throw new Error(`${name}.idx: not a version-2 pack index`);
  const count = data.readUInt32BE(8 + 255 * 4);
  const idsStart = 8 + 256 * 4;
  const offsetsStart = idsStart + count * 24;
  const largeStart = offsetsStart + count * 4;
  for (let i = 0; i < count; i++) {
    const oid = data.toString("hex", idsStart + i * 20, idsStart + i * 20 + 20);
    let offset = data.readUInt32BE(offsetsStart + i * 4);
    if (offset & 0x80000000) offset = Number(data.readBigUInt64BE(largeStart + (offset & 0x7fffffff) * 8));
    offsets.set(oid, offset);
  }
  return { name, offsets };
}

/**
 * Reads objects from the shadow repository. Pack entries, whole or deltas (prune writes
 * offset deltas; a reference delta's base is looked up by id), are read directly with
 * positioned reads and a native inflate; loose objects are inflated from their file; anything
 * else goes through isomorphic-git.
 */
export class ObjectStore {
  private packs: PackIndex[] = [];
  /** Every packed object, across packs: one lookup however many packs there are. */
  private entries = new Map<string, { pack: string; offset: number }>();
  private loaded = false;
  private readonly gitCache: object = {};
  /** Decoded trees, least recently used first: objects never change, so nothing goes stale. */
  private trees = new Map<string, readonly TreeEntry[]>();
  private cachedTreeEntries = 0;
  /** Objects read from disk so far (trees served from the decoded cache are not counted): for the restore's log line. */
  objectsRead = 0;

  constructor(private readonly gitdir: string) {}

  get packDirectory(): string {
    return join(this.gitdir, "objects", "pack");
  }

  /** Re-reads the list of packs (after a repack removed some). */
  reload(): void {
    this.closeFiles();
    this.packs = [];
    this.entries = new Map();
    let names: string[] = [];
    try {
      names = readdirSync(this.packDirectory)
        .filter((f) => f.startsWith("pack-") && f.endsWith(".idx"))
        .map((f) => f.slice(0, -4));
    } catch {
      names = [];
    }
    for (const name of names) this.addPack(name);
    this.loaded = true;
    for (const key of Object.keys(this.gitCache)) delete (this.gitCache as Record<string, unknown>)[key];
    // The repository may have been replaced: a cached tree must not stand in for a lost object.
    this.trees.clear();
    this.cachedTreeEntries = 0;
    this.bases.clear();
    this.cachedBaseBytes = 0;
  }

  /**
   * A tree's entries. Recently read trees are kept decoded: a restore or diff opens the folders
   * that differ from the working tree, and the next restore of a recent checkpoint opens the
   * same ones again (inflating and decoding them was most of a restore's plan).
   */
  async readTree(oid: string): Promise<readonly TreeEntry[]> {
    const cached = this.trees.get(oid);
    if (cached !== undefined) {
      this.trees.delete(oid);
      this.trees.set(oid, cached);
      return cached;
    }
    const entries: readonly TreeEntry[] = Object.freeze(decodeTree((await this.read(oid)).content));
    this.keepTree(oid, entries);
    return entries;
  }

  /**
   * Trees whose entries the caller already has (a commit's scan encoded them) and whose objects
   * are stored now (the writer that wrote them has finished, or they were there before): kept as
   * if read, so the plan of the next restore or diff opens no pack for them. Entries must be in
   * the tree's stored order, as encodeTree wrote them.
   */
  rememberTrees(trees: Iterable<[string, readonly TreeEntry[]]>): void {
    for (const [oid, entries] of trees) {
      if (this.trees.has(oid)) continue;
      this.keepTree(oid, Object.isFrozen(entries) ? entries : Object.freeze([...entries]));
    }
  }

  private keepTree(oid: string, entries: readonly TreeEntry[]): void {
    this.trees.set(oid, entries);
    this.cachedTreeEntries += entries.length;
    for (const [old, oldEntries] of this.trees) {
      if (this.cachedTreeEntries <= maxCachedTreeEntries) break;
      this.trees.delete(old);
      this.cachedTreeEntries -= oldEntries.length;
    }
  }

  /** Makes a pack readable; `indexData`: its index as the writer just wrote it (else read from disk). */
  addPack(name: string, indexData?: Buffer): void {
    if (this.packs.some((p) => p.name === name)) return;
    const index = parseIndex(name, indexData ?? readFileSync(join(this.packDirectory, `${name}.idx`)));
    this.packs.push({ name, offsets: new Map() });
    for (const [oid, offset] of index.offsets) if (!this.entries.has(oid)) this.entries.set(oid, { pack: name, offset });
  }

  packNames(): string[] {
    if (!this.loaded) this.reload();
    return this.packs.map((p) => p.name);
  }

  has(oid: string): boolean {
    if (!this.loaded) this.reload();
    return this.entries.has(oid) || fs.existsSync(looseObjectPath(this.gitdir, oid));
  }

  async read(oid: string): Promise<StoredObject> {
    if (!this.loaded) this.reload();
    this.objectsRead++;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const entry = this.entries.get(oid);
        if (entry) {
          const direct = await this.readPacked(entry.pack, entry.offset);
          if (direct) return direct;
        }
        break;
      } catch (error) {
        // A pack vanished (a repack replaced it): look again at what is there now.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt > 0) throw error;
        this.reload();
      }
    }
    const loose = readLooseObject(this.gitdir, oid);
    if (loose && Object.values(typeNames).includes(loose.type as StoredObject["type"])) return { type: loose.type as StoredObject["type"], content: loose.content };
    try {
      const result = await git.readObject({ fs, gitdir: this.gitdir, oid, format: "content", cache: this.gitCache });
      return { type: result.type as StoredObject["type"], content: Buffer.from(result.object as Uint8Array) };
    } catch {
      throw aideError("CHECKPOINT_NOT_FOUND", { checkpoint: oid });
    }
  }

  /** Open pack files, most recently used last; a few stay open so a restore or diff does not reopen them per object. */
  private openFiles = new Map<string, number>();

  private packFile(name: string): number {
    const open = this.openFiles.get(name);
    if (open !== undefined) {
      this.openFiles.delete(name);
      this.openFiles.set(name, open);
      return open;
    }
    const fd = openSync(join(this.packDirectory, `${name}.pack`), "r");
    this.openFiles.set(name, fd);
    if (this.openFiles.size > maxOpenPacks) {
      const [oldest, oldestFd] = this.openFiles.entries().next().value as [string, number];
      this.openFiles.delete(oldest);
      closeSync(oldestFd);
    }
    return fd;
  }

  /** Closes the pack files kept open (after a repack removed them, and on shutdown). */
  closeFiles(): void {
    for (const fd of this.openFiles.values()) closeSync(fd);
    this.openFiles.clear();
  }

  /** Objects read as delta bases, by pack and offset, least recently used first. */
  private bases = new Map<string, StoredObject>();
  private cachedBaseBytes = 0;

  private rememberBase(key: string, object: StoredObject): void {
    if (object.content.length > maxCachedBaseBytes / 4) return;
    this.bases.set(key, object);
    this.cachedBaseBytes += object.content.length;
    for (const [old, oldObject] of this.bases) {
      if (this.cachedBaseBytes <= maxCachedBaseBytes) break;
      this.bases.delete(old);
      this.cachedBaseBytes -= oldObject.content.length;
    }
  }

  private async readPacked(name: string, offset: number, depth = 0): Promise<StoredObject | undefined> {
    const fd = this.packFile(name);
    let type: StoredObject["type"] | undefined;
    let content: Buffer;
    let base: { offset: number } | { oid: string } | undefined;
    try {
      const head = Buffer.alloc(32);
      readSync(fd, head, 0, head.length, offset);
      let byte = head[0];
      const typeNumber = (byte >> 4) & 7;
      let size = byte & 0x0f;
      let shift = 4;
      let position = 1;
      while (byte & 0x80) {
        byte = head[position++];
        size += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      }
      if (typeNumber === offsetDelta) {
        // The base's distance back from this entry, in git's offset encoding (each continuation adds one).
        byte = head[position++];
        let distance = byte & 0x7f;
        while (byte & 0x80) {
          byte = head[position++];
          distance = (distance + 1) * 128 + (byte & 0x7f);
        }
        base = { offset: offset - distance };
      } else if (typeNumber === referenceDelta) {
        base = { oid: head.toString("hex", position, position + 20) };
        position += 20;
      } else {
        type = typeNames[typeNumber];
        if (type === undefined) return undefined;
      }
      // Deflated data is at most a little larger than the content; read generously and let inflate stop.
      const budget = size + Math.ceil(size / 1000) * 5 + 64;
      const body = Buffer.alloc(budget);
      const got = readSync(fd, body, 0, budget, offset + position);
      content = inflateSync(body.subarray(0, got), { finishFlush: 2 });
      if (content.length !== size) return undefined;
    } catch (error) {
      this.openFiles.delete(name);
      closeSync(fd);
      throw error;
    }
    if (base === undefined) return { type: type!, content };
    if (depth >= maxDeltaDepth) throw new Error(`${name}.pack: a delta chain deeper than ${maxDeltaDepth} at offset ${offset}`);
    let baseObject: StoredObject | undefined;
    if ("offset" in base) {
      const key = `${name}:${base.offset}`;
      baseObject = this.bases.get(key);
      if (baseObject !== undefined) {
        this.bases.delete(key);
        this.bases.set(key, baseObject);
      } else {
        baseObject = await this.readPacked(name, base.offset, depth + 1);
        if (baseObject !== undefined) this.rememberBase(key, baseObject);
      }
    } else baseObject = await this.read(base.oid);
    if (baseObject === undefined) return undefined;
    return { type: baseObject.type, content: applyDelta(baseObject.content, content) };
  }
}
