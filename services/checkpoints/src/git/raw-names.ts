/**
 * File names that are not valid UTF-8, kept byte-exact. Inside the service a name is a string: a
 * valid UTF-8 name is its decoded text; any other name is a lone high surrogate followed by its
 * bytes as latin1 characters. No UTF-8 decoding ever yields a lone surrogate, so the two forms
 * cannot collide, and the name's bytes come back exactly (for the file system, for git trees).
 */
const rawMarker = "\uD800";

/** The service's string for a name's bytes. */
export function decodeName(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString("utf8");
  // U+FFFD marks an invalid sequence, unless the name really holds U+FFFD (then it round-trips).
  if (!text.includes("\uFFFD") || Buffer.from(text, "utf8").equals(buffer)) return text;
  return rawMarker + buffer.toString("latin1");
}

/** A name in this `/`-separated path is not UTF-8 (node:fs needs its bytes: fsPath). */
export function hasRawName(path: string): boolean {
  return path.includes(rawMarker);
}

export function isRawName(name: string): boolean {
  return name.startsWith(rawMarker);
}

/** The bytes of a name (or of a `/`-separated path of names). */
export function nameBytes(name: string): Buffer {
  if (!name.includes(rawMarker)) return Buffer.from(name, "utf8");
  return Buffer.concat(name.split("/").flatMap((part, index) => [...(index > 0 ? [Buffer.from("/")] : []), isRawName(part) ? Buffer.from(part.slice(1), "latin1") : Buffer.from(part, "utf8")]));
}

/** A path for node:fs: the plain string, or its bytes when a name in it is not UTF-8. */
export function fsPath(base: string, relative = ""): string | Buffer {
  const joined = relative === "" ? base : `${base}/${relative}`;
  return joined.includes(rawMarker) ? nameBytes(joined) : joined;
}

/** A path for people and JSON replies: each byte of a non-UTF-8 name shown as `\xNN` when it is not ASCII. */
export function displayPath(path: string): string {
  if (!path.includes(rawMarker)) return path;
  return path
    .split("/")
    .map((part) => (isRawName(part) ? [...part.slice(1)].map((c) => (c.charCodeAt(0) < 0x80 ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)).join("") : part))
    .join("/");
}
