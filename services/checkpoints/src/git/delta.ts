/**
 * Git's delta format (as in pack entries of type OFS_DELTA): the base's and the result's sizes,
 * then instructions that copy a range of the base or insert literal bytes.
 */

/** Matches are looked for on blocks of this many bytes of the base. */
const blockBytes = 16;
/** The largest range one copy instruction names (three size bytes). */
const maxCopyBytes = 0xffffff;
/** The most literal bytes one insert instruction carries. */
const maxInsertBytes = 0x7f;

function pushSize(out: number[], size: number): void {
  let rest = size;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
}

function readSize(delta: Uint8Array, at: { position: number }): number {
  let size = 0;
  let scale = 1;
  for (;;) {
    if (at.position >= delta.length) throw new Error("malformed delta: truncated size");
    const byte = delta[at.position++];
    size += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return size;
  }
}

/** A 32-bit hash of `blockBytes` bytes from `at` (the same function on both sides). */
function blockHash(bytes: Uint8Array, at: number): number {
  let hash = 0;
  for (let i = 0; i < blockBytes; i++) hash = (Math.imul(hash, 31) + bytes[at + i]) | 0;
  return hash;
}

/** Multiplier that takes a byte out of the rolling hash: 31^(blockBytes-1) mod 2^32. */
const dropFactor = (() => {
  let factor = 1;
  for (let i = 0; i < blockBytes - 1; i++) factor = Math.imul(factor, 31);
  return factor;
})();

function pushInsert(out: number[], target: Uint8Array, from: number, to: number): void {
  for (let at = from; at < to; at += maxInsertBytes) {
    const end = Math.min(to, at + maxInsertBytes);
    out.push(end - at);
    for (let i = at; i < end; i++) out.push(target[i]);
  }
}

function pushCopy(out: number[], offset: number, length: number): void {
  for (let done = 0; done < length; ) {
    const size = Math.min(maxCopyBytes, length - done);
    const from = offset + done;
    const commandAt = out.length;
    let command = 0x80;
    out.push(0);
    for (let i = 0; i < 4; i++) {
      const byte = Math.floor(from / 2 ** (8 * i)) & 0xff;
      if (byte !== 0) {
        command |= 1 << i;
        out.push(byte);
      }
    }
    for (let i = 0; i < 3; i++) {
      const byte = (size >> (8 * i)) & 0xff;
      if (byte !== 0) {
        command |= 0x10 << i;
        out.push(byte);
      }
    }
    out[commandAt] = command;
    done += size;
  }
}

/**
 * A delta that rebuilds `target` from `base`, or undefined when it would not be smaller than
 * `limit` bytes (then the object is better stored whole). The base is indexed on aligned
 * 16-byte blocks; the target is scanned with a rolling hash, and each match is extended both
 * ways byte by byte, so an edit anywhere costs about its own size.
 */
export function encodeDelta(base: Uint8Array, target: Uint8Array, limit = target.length): Buffer | undefined {
  const out: number[] = [];
  pushSize(out, base.length);
  pushSize(out, target.length);
  const index = new Map<number, number>();
  // Later blocks first, so an earlier occurrence of the same block wins (copies read forward).
  for (let at = Math.floor(base.length / blockBytes - 1) * blockBytes; at >= 0; at -= blockBytes) index.set(blockHash(base, at), at);
  let literalStart = 0;
  let position = 0;
  let hash = target.length >= blockBytes ? blockHash(target, 0) : 0;
  while (position + blockBytes <= target.length) {
    const candidate = index.get(hash);
    let matched = 0;
    let baseAt = 0;
    if (candidate !== undefined) {
      let length = 0;
      while (candidate + length < base.length && position + length < target.length && base[candidate + length] === target[position + length]) length++;
      if (length >= blockBytes) {
        // Extend backwards over literals not yet emitted.
        let back = 0;
        while (back < position - literalStart && back < candidate && base[candidate - back - 1] === target[position - back - 1]) back++;
        matched = length + back;
        baseAt = candidate - back;
        position -= back;
      }
    }
    if (matched > 0) {
      pushInsert(out, target, literalStart, position);
      pushCopy(out, baseAt, matched);
      position += matched;
      literalStart = position;
      if (out.length >= limit) return undefined;
      if (position + blockBytes <= target.length) hash = blockHash(target, position);
      continue;
    }
    if (position + blockBytes < target.length) hash = (Math.imul(hash - Math.imul(target[position], dropFactor), 31) + target[position + blockBytes]) | 0;
    position++;
    if (position - literalStart > limit) return undefined;
  }
  pushInsert(out, target, literalStart, target.length);
  if (out.length >= limit) return undefined;
  return Buffer.from(out);
}

/** Rebuilds an object from its base and a git delta, checking both sizes the delta states. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Buffer {
  const at = { position: 0 };
  const baseSize = readSize(delta, at);
  if (baseSize !== base.length) throw new Error(`malformed delta: base is ${base.length} bytes, the delta expects ${baseSize}`);
  const size = readSize(delta, at);
  const out = Buffer.allocUnsafe(size);
  let written = 0;
  while (at.position < delta.length) {
    const command = delta[at.position++];
    if (command & 0x80) {
      let offset = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (command & (1 << i)) offset += delta[at.position++] * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (command & (0x10 << i)) length |= delta[at.position++] << (8 * i);
      if (length === 0) length = 0x10000;
      if (offset + length > base.length || written + length > size) throw new Error("malformed delta: copy out of range");
      out.set(base.subarray(offset, offset + length), written);
      written += length;
    } else if (command !== 0) {
      if (at.position + command > delta.length || written + command > size) throw new Error("malformed delta: insert out of range");
      out.set(delta.subarray(at.position, at.position + command), written);
      at.position += command;
      written += command;
    } else throw new Error("malformed delta: reserved instruction 0");
  }
  if (written !== size) throw new Error(`malformed delta: built ${written} of ${size} bytes`);
  return out;
}
