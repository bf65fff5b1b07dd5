/** Writes git packs (version 2; offset deltas when the caller names a base) with their index. */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { encodeDelta } from "./delta.js";
import { hashObject, type GitObjectType, type TreeEntry } from "./git-objects.js";

const typeNumbers: Record<GitObjectType, number> = { commit: 1, tree: 2, blob: 3 };
/** A pack is flushed once its compressed objects pass this size, bounding memory. */
const defaultFlushBytes = 64 * 1024 * 1024;
const offsetDeltaType = 6;
/** Longest chain of deltas written: reading the last one applies this many. */
export const maxDeltaDepth = 10;

interface PackedObject {
  oid: string;
  offset: number;
  crc: number;
}

/**
 * Collects objects into git pack files (version 2) with their version-2 index,
 * instead of one loose file per object: ten thousand small files become one write. Objects are
 * visible to readers only when `finish` renames the index into place, so a process killed
 * mid-write leaves nothing but a temp file.
 */
export class PackWriter {
  private chunks: Buffer[] = [];
  private objects: PackedObject[] = [];
  private seen = new Set<string>();
  private offset = 12;
  private written: string[] = [];
  /** Each written pack's index as it was written (the object store reads it from here, not back from disk). */
  private readonly indexes = new Map<string, Buffer>();
  /** The objects of the pack being written: where each starts and how many deltas it lies under. */
  private placed = new Map<string, { offset: number; depth: number }>();
  /** Entries of the trees the scan encoded for this writer (see takeTrees). */
  private trees = new Map<string, readonly TreeEntry[]>();

  constructor(
    private readonly packDirectory: string,
    private readonly level: number,
    /** Objects already stored are not written again. */
    private readonly exists: (oid: string) => boolean = () => false,
    private readonly flushBytes = defaultFlushBytes,
  ) {}

  get objectCount(): number {
    return this.seen.size;
  }

  /**
   * Adds an object (once per oid) and returns its id. With `base` (an object written earlier to
   * this writer, with its content), the object is stored as a delta against it when that is under
   * a third of its size, the base is still in the pack being written and its chain is short
   * enough; otherwise whole. Returns its id.
   */
  async write(type: GitObjectType, content: Uint8Array, knownOid?: string, base?: { oid: string; content: Uint8Array }): Promise<string> {
    await this.add(type, content, knownOid, base);
    return knownOid ?? hashObject(type, content);
  }

  /** As `write`, telling how the object was stored (`delta`, `whole`, or `present` when it was not written again). */
  async add(type: GitObjectType, content: Uint8Array, knownOid?: string, base?: { oid: string; content: Uint8Array }): Promise<"delta" | "whole" | "present"> {
    const oid = knownOid ?? hashObject(type, content);
    if (this.seen.has(oid) || this.exists(oid)) return "present";
    this.seen.add(oid);
    const placedBase = base === undefined ? undefined : this.placed.get(base.oid);
    const delta = placedBase !== undefined && placedBase.depth < maxDeltaDepth ? encodeDelta(base!.content, content, Math.floor(content.length / 3)) : undefined;
    let header: Buffer;
    let body: Buffer;
    if (delta !== undefined) {
      header = Buffer.concat([encodeEntryHeader(offsetDeltaType, delta.length), encodeBaseDistance(this.offset - placedBase!.offset)]);
      body = deflateSync(delta, { level: this.level });
    } else {
      header = encodeEntryHeader(typeNumbers[type], content.length);
      body = deflateSync(content, { level: this.level });
    }
    const crc = crc32(body, crc32(header));
    this.placed.set(oid, { offset: this.offset, depth: delta !== undefined ? placedBase!.depth + 1 : 0 });
    this.objects.push({ oid, offset: this.offset, crc });
    this.chunks.push(header, body);
    this.offset += header.length + body.length;
    if (this.offset >= this.flushBytes) await this.flush();
    return delta !== undefined ? "delta" : "whole";
  }

  knowTree(oid: string, entries: readonly TreeEntry[]): void {
    this.trees.set(oid, entries);
  }

  /**
   * The trees told to knowTree since the last call, for the object store's tree cache. Only
   * after `finish` succeeded are they all stored (in a published pack, or there before).
   */
  takeTrees(): Map<string, readonly TreeEntry[]> {
    const trees = this.trees;
    this.trees = new Map();
    return trees;
  }

  /** Writes what is pending as a pack; returns the pack names written so far. */
  /** The index of a pack this writer wrote. */
  indexOf(name: string): Buffer | undefined {
    return this.indexes.get(name);
  }

  async finish(): Promise<string[]> {
    await this.flush();
    return this.written;
  }

  /** Drops what is pending (an abandoned commit); packs already flushed stay, unreferenced, until prune. */
  discard(): void {
    this.trees = new Map();
    this.chunks = [];
    this.objects = [];
    this.placed = new Map();
    this.offset = 12;
  }

  private async flush(): Promise<void> {
    if (this.objects.length === 0) return;
    const header = Buffer.alloc(12);
    header.write("PACK", 0, "latin1");
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(this.objects.length, 8);
    const hash = createHash("sha1").update(header);
    for (const chunk of this.chunks) hash.update(chunk);
    const checksum = hash.digest();
    const name = `pack-${checksum.toString("hex")}`;
    const index = encodeIndex(this.objects, checksum);
    const pack = Buffer.concat([header, ...this.chunks, checksum]);
    const temp = join(this.packDirectory, `tmp_${process.pid}_${randomBytes(6).toString("hex")}`);
    try {
      // The pack, then its index, each under a temp name, then renamed in that order: the index
      // (what makes the objects visible) never names a pack that is not whole in place.
      if (pack.length + index.length <= syncWriteBytes) writeSmallPack(this.packDirectory, temp, name, pack, index);
      else await writeLargePack(this.packDirectory, temp, name, pack, index);
    } catch (error) {
      rmSync(`${temp}.pack`, { force: true });
      rmSync(`${temp}.idx`, { force: true });
      throw error;
    }
    this.indexes.set(name, index);
    this.written.push(name);
    this.chunks = [];
    this.objects = [];
    this.placed = new Map();
    this.offset = 12;
  }
}

/**
 * A pack and index this small (a checkpoint of a few changed files) are written with synchronous
 * calls: six short syscalls, where the thread pool cost a hop and an event-loop turn each (the
 * turns are what a commit waits for when hundreds of sessions checkpoint at once). A larger one
 * (a first checkpoint of a big tree, a repack) is written off the event loop as before.
 */
const syncWriteBytes = 1024 * 1024;

const isMissingFolder = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

function writeSmallPack(directory: string, temp: string, name: string, pack: Buffer, index: Buffer): void {
  try {
    writeFileSync(`${temp}.pack`, pack);
  } catch (error) {
    // The folder is made when the shadow repository is (and checked before every lock): only
    // made here again when something removed it.
    if (!isMissingFolder(error)) throw error;
    mkdirSync(directory, { recursive: true });
    writeFileSync(`${temp}.pack`, pack);
  }
  writeFileSync(`${temp}.idx`, index);
  renameSync(`${temp}.pack`, join(directory, `${name}.pack`));
  renameSync(`${temp}.idx`, join(directory, `${name}.idx`));
}

async function writeLargePack(directory: string, temp: string, name: string, pack: Buffer, index: Buffer): Promise<void> {
  await mkdir(directory, { recursive: true });
  await writeFile(`${temp}.pack`, pack);
  await writeFile(`${temp}.idx`, index);
  await rename(`${temp}.pack`, join(directory, `${name}.pack`));
  await rename(`${temp}.idx`, join(directory, `${name}.idx`));
}

/** How far back an offset delta's base starts, in git's encoding (each continuation byte adds one). */
function encodeBaseDistance(distance: number): Buffer {
  const bytes = [distance & 0x7f];
  let rest = Math.floor(distance / 128);
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(0x80 | (rest & 0x7f));
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

function encodeEntryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** The version-2 pack index: fan-out, sorted ids, CRCs, offsets (64-bit past 2 GiB), checksums. */
export function encodeIndex(objects: readonly PackedObject[], packChecksum: Buffer): Buffer {
  const sorted = [...objects].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const count = sorted.length;
  const fanout = Buffer.alloc(256 * 4);
  const counts = new Array<number>(256).fill(0);
  for (const object of sorted) counts[parseInt(object.oid.slice(0, 2), 16)]++;
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += counts[i];
    fanout.writeUInt32BE(running, i * 4);
  }
  const ids = Buffer.alloc(count * 20);
  const crcs = Buffer.alloc(count * 4);
  const offsets = Buffer.alloc(count * 4);
  const large: Buffer[] = [];
  sorted.forEach((object, i) => {
    ids.write(object.oid, i * 20, "hex");
    crcs.writeUInt32BE(object.crc >>> 0, i * 4);
    if (object.offset < 0x80000000) offsets.writeUInt32BE(object.offset, i * 4);
    else {
      offsets.writeUInt32BE((0x80000000 | large.length) >>> 0, i * 4);
      const wide = Buffer.alloc(8);
      wide.writeBigUInt64BE(BigInt(object.offset));
      large.push(wide);
    }
  });
  const body = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fanout, ids, crcs, offsets, ...large, packChecksum]);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}
