const signatures: Array<[string, number[]]> = [
  ["PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["JPEG image", [0xff, 0xd8, 0xff]],
  ["GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["PDF document", [0x25, 0x50, 0x44, 0x46]],
  ["ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["ZIP archive", [0x50, 0x4b, 0x03, 0x04]],
  ["gzip archive", [0x1f, 0x8b]],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d]],
  ["GGUF model", [0x47, 0x47, 0x55, 0x46]],
  ["SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]],
];

/** A file is treated as binary when its first bytes hold a NUL or mostly invalid UTF-8. */
export function looksBinary(head: Buffer): boolean {
  if (head.includes(0)) return true;
  if (head.length === 0) return false;
  const text = head.toString("utf8");
  const replacements = (text.match(/\uFFFD/g) ?? []).length;
  return replacements > 8 && replacements / text.length > 0.1;
}

export function describeBinary(head: Buffer, sizeBytes: number): string {
  const kind = signatures.find(([, bytes]) => bytes.every((b, i) => head[i] === b))?.[0] ?? "binary data";
  return `This is a binary file (${kind}, ${sizeBytes} bytes); its contents are not shown.`;
}
