/** Writes git packs (version 2, no deltas) with their index. */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { hashObject, type GitObjectType } from "./git-objects.js";

const typeNumbers: Record<GitObjectType, number> = { commit: 1, tree: 2, blob: 3 };
/** A pack is flushed once its compressed objects pass this size, bounding memory. */
const defaultFlushBytes = 64 * 1024 * 1024;

interface PackedObject {
  oid: string;
  offset: number;
  crc: number;
}

/**
 * Collects objects into git pack files (version 2, no deltas) with their version-2 index,
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

  /** Adds an object (once per oid) and returns its id. */
  async write(type: GitObjectType, content: Uint8Array, knownOid?: string): Promise<string> {
    const oid = knownOid ?? hashObject(type, content);
    if (this.seen.has(oid) || this.exists(oid)) return oid;
    this.seen.add(oid);
    const header = encodeEntryHeader(typeNumbers[type], content.length);
    const body = deflateSync(content, { level: this.level });
    const crc = crc32(body, crc32(header));
    this.objects.push({ oid, offset: this.offset, crc });
    this.chunks.push(header, body);
    this.offset += header.length + body.length;
    if (this.offset >= this.flushBytes) await this.flush();
    return oid;
  }

  /** Writes what is pending as a pack; returns the pack names written so far. */
  async finish(): Promise<string[]> {
    await this.flush();
    return this.written;
  }

  /** Drops what is pending (an abandoned commit); packs already flushed stay, unreferenced, until prune. */
  discard(): void {
    this.chunks = [];
    this.objects = [];
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
    await mkdir(this.packDirectory, { recursive: true });
    const temp = join(this.packDirectory, `tmp_${process.pid}_${randomBytes(6).toString("hex")}`);
    try {
      await writeFile(`${temp}.pack`, Buffer.concat([header, ...this.chunks, checksum]));
      await writeFile(`${temp}.idx`, index);
      await rename(`${temp}.pack`, join(this.packDirectory, `${name}.pack`));
      await rename(`${temp}.idx`, join(this.packDirectory, `${name}.idx`));
    } catch (error) {
      await rm(`${temp}.pack`, { force: true });
      await rm(`${temp}.idx`, { force: true });
      throw error;
    }
    this.written.push(name);
    this.chunks = [];
    this.objects = [];
    this.offset = 12;
  }
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
